// The small protocol between bench/run.mjs and its server processes.
import { resolve } from "node:path";
import { internalsOf } from "../lib/in-process.mjs";

/**
 * Prints the one JSON line run.mjs waits for: the port and, per target, its path and headers (and,
 * for a POST, its method, body and a string the probe's answer must contain); `extra` adds members.
 */
export function printReady(app, targets, extra = {}) {
  const { port } = app.server.address();
  process.stdout.write(`${JSON.stringify({ ...extra, ready: true, port, targets })}\n`);
}

/**
 * Exits through process.exit on SIGTERM/SIGINT (after closing the server), because `node --cpu-prof`
 * writes its profile only on a normal exit, never when the process is killed by a signal.
 */
export function stopOnSignal(close) {
  const stop = () => {
    const timer = setTimeout(() => process.exit(0), 2000);
    timer.unref();
    Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/**
 * The benchmark's organization: an owner key (the caller) and a target key with a few permissions
 * (the record read back), with the read quota raised so that the limiter admits every request: the
 * benchmark measures the admitted path, not 429s. Returns the target and the caller's Authorization.
 */
export async function seedBenchOrganization(services, createOrganizationWithOwner) {
  const { organization, owner, secret } = await createOrganizationWithOwner(services, "bench");
  const { key: target } = await services.keys.create(owner, {
    name: "bench target",
    description: "The key the benchmark reads back, with a few permissions.",
    permissions: ["images:create", "images:read", "templates:read", "api_keys:read"],
  });
  await services.store.setQuota(organization.id, "api-key:read", 1e9);
  const authorization = `Basic ${Buffer.from(`${owner.apiId}:${secret}`).toString("base64")}`;
  return { target, authorization };
}

/**
 * The log settings of a bench server: BENCH_LOG_LEVEL (default `info`, latchkey's default, with its
 * access log: one line per request) and BENCH_ACCESS_LOG (default `on`). The lines go, through the
 * same asynchronous pino destination latchkey writes standard output with, to `file` instead: the
 * server's standard output carries its ready line.
 */
export async function benchLogging(file) {
  const dist = resolve(process.env.BENCH_DIST ?? new URL("../../dist", import.meta.url).pathname);
  // The destination of the build measured; a build older than logDestination gets pino's plain one.
  const { logDestination } = await internalsOf(dist);
  const { default: pino } = await import("pino");
  const destination = logDestination ?? ((dest) => pino.destination({ dest, sync: false }));
  return {
    env: {
      LATCHKEY_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
      LATCHKEY_ACCESS_LOG: process.env.BENCH_ACCESS_LOG ?? "on",
    },
    logStream: destination(file),
  };
}

/**
 * `POST /v1/authorize` as a platform service calls it: a service token, the caller's Authorization
 * header, a permission, and no group; once without credits and once with one (the plan's allowance
 * raised so every request is allowed).
 */
export async function authorizeTargets(services, target, authorization) {
  const { token } = await services.serviceTokens.create("bench");
  // Within PostgreSQL's integer column, and more than any run consumes.
  await services.plans.change(target.orgId, { imageCredits: 2_000_000_000 });
  const headers = { "content-type": "application/json", "x-latchkey-service-token": token };
  const body = (extra) => JSON.stringify({ authorization, permission: "images:create", ...extra });
  return {
    authorize: { method: "POST", path: "/v1/authorize", headers, body: body({}) },
    "authorize+credit": { method: "POST", path: "/v1/authorize", headers, body: body({ credits: 1 }) },
  };
}

/**
 * Authorize against a platform group of one window (60 s) and of three (1 s, 1 h, 1 day), as
 * stacked-windows.mjs declares them, with quotas no run reaches: both take the admitted path, and
 * their difference is what the further windows cost a whole request (issue 33's +10%). `authorize`
 * is authorizeTargets' plain authorize, whose headers and caller they reuse.
 */
export async function stackedGroupTargets(services, authorize) {
  // A build from before the platform's own groups (a --compare or --dist of an older commit) has no
  // such targets; its other routes are measured as before.
  if (!services.groups) return {};
  const policies = {
    "bench-one": [{ quota: 1e9, windowSeconds: 60 }],
    "bench-three": [
      { quota: 1e9, windowSeconds: 1 },
      { quota: 1e9, windowSeconds: 3600 },
      { quota: 1e9, windowSeconds: 86_400 },
    ],
  };
  for (const [group, windows] of Object.entries(policies)) {
    await services.groups.put(group, { policies: windows, per: "organization" }, "bench");
  }
  const withGroup = (group) => ({
    ...authorize,
    body: JSON.stringify({ ...JSON.parse(authorize.body), group }),
  });
  return { "authorize-group1": withGroup("bench-one"), "authorize-group3": withGroup("bench-three") };
}
