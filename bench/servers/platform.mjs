// latchkey for the platform benchmark (bench/platform.mjs): buildApp as in production (SQLite in WAL
// mode, in-memory limiter, logging at "warn", the route table of examples/routes.json), over a fresh
// temporary database with one organization whose plan allows 1e9 image credits, so that no request of
// the run is ever refused for credits, a key holding images:create and images:read, and a service token.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { printReady, stopOnSignal } from "./ready.mjs";
import { internalsOf } from "../lib/in-process.mjs";

const dist = resolve(process.env.BENCH_DIST ?? new URL("../../dist", import.meta.url).pathname);
const latchkey = await internalsOf(dist);
const { buildApp, loadConfig, createOrganizationWithOwner } = latchkey;
const routes = new URL("../../examples/routes.json", import.meta.url).pathname;

const directory = mkdtempSync(join(tmpdir(), "latchkey-bench-platform-"));
const config = loadConfig({
  LATCHKEY_DATABASE_URL: `sqlite:${join(directory, "latchkey.db")}`,
  LATCHKEY_LOG_LEVEL: "warn",
  LATCHKEY_BOOTSTRAP: "off",
  LATCHKEY_ROUTES: routes,
  HOST: "127.0.0.1",
  PORT: "0",
});
const { app, services } = await buildApp({ config });

const { organization, owner } = await createOrganizationWithOwner(services, "bench");
await services.plans.change(organization.id, { imageCredits: 1_000_000_000 });
const { key, secret } = await services.keys.create(owner, {
  name: "platform caller",
  permissions: ["images:create", "images:read"],
});
const authorization = `Basic ${Buffer.from(`${key.apiId}:${secret}`).toString("base64")}`;
const { token } = await services.serviceTokens.create("bench");

const platform = { "x-latchkey-service-token": token, "content-type": "application/json" };
const authorize = (body) => ({
  path: "/v1/authorize",
  method: "POST",
  headers: platform,
  body: JSON.stringify({ authorization, permission: "images:create", ...body }),
  expectBody: '"allowed":true',
});
const targets = {
  "authorize+credit": authorize({ credits: 1 }),
  authorize: authorize({}),
};

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await app.close();
  rmSync(directory, { recursive: true, force: true });
});
printReady(app, targets, { authorization, serviceToken: token });
