// latchkey as it runs in production (buildApp, SQLite in WAL mode, in-memory limiter, logging at "info"
// with the access log, or as BENCH_LOG_LEVEL and BENCH_ACCESS_LOG say, to a file: ready.mjs),
// over a fresh temporary database: one organization, its owner key and the key the benchmark reads.
// BENCH_DIST points at another build (a scratch copy with a candidate optimization); BENCH_BREAKDOWN=1
// adds routes that each run one part of the hot path, so its cost can be measured apart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  authorizeTargets,
  benchLogging,
  printReady,
  seedBenchOrganization,
  stackedGroupTargets,
  stopOnSignal,
} from "./ready.mjs";
import { internalsOf } from "../lib/in-process.mjs";

const dist = resolve(process.env.BENCH_DIST ?? new URL("../../dist", import.meta.url).pathname);
const latchkey = await internalsOf(dist);
const { buildApp, loadConfig, createOrganizationWithOwner } = latchkey;

const directory = mkdtempSync(join(tmpdir(), "latchkey-bench-"));
const logging = await benchLogging(join(directory, "latchkey.log"));
const config = loadConfig({
  LATCHKEY_DATABASE_URL: `sqlite:${join(directory, "latchkey.db")}`,
  ...logging.env,
  LATCHKEY_BOOTSTRAP: "off",
  HOST: "127.0.0.1",
  PORT: "0",
});
const { app, services } = await buildApp({ config, logStream: logging.logStream });

const { target, authorization } = await seedBenchOrganization(services, createOrganizationWithOwner);
const authorize = await authorizeTargets(services, target, authorization);
const targets = {
  latchkey: { path: `/v1/api-keys/${target.id}`, headers: { authorization } },
  ...authorize,
  ...(await stackedGroupTargets(services, authorize.authorize)),
};
if (process.env.BENCH_BREAKDOWN === "1") {
  Object.assign(targets, await addBreakdownRoutes(target, authorization));
}

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await app.close();
  rmSync(directory, { recursive: true, force: true });
});
printReady(app, targets);

/**
 * Routes that each do a prefix of the real route's work, on the same Fastify instance (same logger,
 * request ids, hooks and error handler). Differences in server CPU per request between them attribute
 * the real route's cost. They reach into latchkey's internals through src/bench-api.ts, which the type checker holds.
 */
async function addBreakdownRoutes(target, authorization) {
  const { authenticate, KEY_OPERATIONS, missingPermission, grantAllows, toKeyResponse, KeyRecord } = latchkey;
  const assertHasPermission = (caller, permission) => {
    if (!grantAllows(caller, permission)) throw missingPermission(permission);
  };
  const { store, hasher, rateLimit } = services;
  const policy = KEY_OPERATIONS.getKey;
  const record = toKeyResponse(target, Date.now());

  app.get("/bench/plain", async () => record);
  app.get("/bench/auth", async (request) => {
    const caller = await authenticate(request.headers.authorization, store, hasher, { now: Date.now() });
    assertHasPermission(caller, policy.permission);
    return record;
  });
  app.get("/bench/auth-limit", async (request) => {
    const caller = await authenticate(request.headers.authorization, store, hasher, { now: Date.now() });
    assertHasPermission(caller, policy.permission);
    const decision = await rateLimit.consume(caller.orgId, policy.group);
    if (decision.type !== "allow") throw new Error("bench: rate limited");
    return record;
  });
  app.get("/bench/read/:id", { schema: { hide: true, response: { 200: KeyRecord } } }, async (request) => {
    const { id } = /** @type {{ id: string }} */ (request.params);
    const key = await store.findKey(target.orgId, id);
    if (!key) throw new Error("bench: key not found");
    return toKeyResponse(key, Date.now());
  });

  const headers = { authorization };
  return {
    "app-plain": { path: "/bench/plain", headers: {} },
    auth: { path: "/bench/auth", headers },
    "auth-limit": { path: "/bench/auth-limit", headers },
    "read-only": { path: `/bench/read/${target.id}`, headers: {} },
  };
}
