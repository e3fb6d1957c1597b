// The peers, in one process over one temporary SQLite file (WAL), so latchkey is compared with what
// else a team would run:
// - `better-auth`: Better Auth with its API-key plugin, verifying the key on every request
//   (`auth.api.verifyApiKey`), with and without the plugin's own per-key rate limit;
// - `basic-auth`: "what a user would write instead": Fastify with @fastify/basic-auth checking an
//   api_id and SHA-256-hashed secret in a table shaped like latchkey's `api_keys` (one prepared
//   better-sqlite3 read per request, constant-time compare) and @fastify/rate-limit (in memory).
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiKey } from "@better-auth/api-key";
import fastifyBasicAuth from "@fastify/basic-auth";
import fastifyRateLimit from "@fastify/rate-limit";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import SQLite from "better-sqlite3";
import Fastify from "fastify";
import { printReady, stopOnSignal } from "./ready.mjs";

const directory = mkdtempSync(join(tmpdir(), "latchkey-bench-peers-"));
const database = new SQLite(join(directory, "peers.db"));
database.pragma("journal_mode = WAL");
database.pragma("synchronous = NORMAL");

function authWith(rateLimit) {
  return betterAuth({
    database,
    secret: "bench-secret-bench-secret-bench-secret-0123",
    baseURL: "http://127.0.0.1",
    emailAndPassword: { enabled: true },
    logger: { disabled: true },
    telemetry: { enabled: false },
    plugins: [apiKey({ rateLimit })],
  });
}
const auth = authWith({ enabled: false });
const limitedAuth = authWith({ enabled: true, timeWindow: 60_000, maxRequests: 1_000_000_000 });
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
const { user } = await auth.api.signUpEmail({
  body: { email: "bench@example.com", password: "bench-password-123", name: "bench" },
});
const plain = await auth.api.createApiKey({ body: { userId: user.id, name: "bench" } });
const limited = await limitedAuth.api.createApiKey({
  body: { userId: user.id, name: "bench limited", rateLimitEnabled: true },
});

// The hand-written alternative: latchkey's table shape, one read per request.
database.exec(`create table if not exists api_keys (
  id text primary key, org_id text not null, api_id text not null unique, secret_hash text not null,
  name text not null, description text, enabled integer not null, permissions text not null,
  all_future integer not null, created_at integer not null, updated_at integer not null)`);
const secret = "lksk_bench_secret_0123456789abcdef";
const sha256 = (text) => createHash("sha256").update(text).digest();
database
  .prepare("insert into api_keys values (?, ?, ?, ?, ?, null, 1, ?, 0, ?, ?)")
  .run(
    "key_bench",
    "org_bench",
    "lkid_bench",
    sha256(secret).toString("hex"),
    "bench",
    ",images:create,",
    0,
    0,
  );
const byApiId = database.prepare("select * from api_keys where api_id = ?");

const app = Fastify({ logger: false });
app.post("/better-auth/verify", async (request, reply) => {
  const result = await auth.api.verifyApiKey({ body: { key: request.body.key } });
  if (!result.valid) reply.code(401);
  return { allowed: result.valid, key_id: result.key?.id ?? null };
});
app.post("/better-auth/verify-limited", async (request, reply) => {
  const result = await limitedAuth.api.verifyApiKey({ body: { key: request.body.key } });
  if (!result.valid) reply.code(401);
  return { allowed: result.valid, key_id: result.key?.id ?? null };
});
await app.register(async (scope) => {
  await scope.register(fastifyRateLimit, { max: 1_000_000_000, timeWindow: 60_000 });
  await scope.register(fastifyBasicAuth, {
    validate: async (username, password, request) => {
      const row = byApiId.get(username);
      const presented = sha256(password);
      const stored = row ? Buffer.from(row.secret_hash, "hex") : Buffer.alloc(32);
      if (!row || !timingSafeEqual(presented, stored) || row.enabled !== 1) throw new Error("unauthorized");
      request.keyRow = row;
    },
  });
  scope.addHook("onRequest", scope.basicAuth);
  scope.get("/basic-auth/v1/api-keys/:id", async (request) => {
    const row = request.keyRow;
    return {
      id: row.id,
      api_id: row.api_id,
      name: row.name,
      description: row.description,
      enabled: row.enabled === 1,
      permissions: row.permissions.split(",").filter(Boolean),
      all_future_permissions: row.all_future === 1,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    };
  });
});

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await app.close();
  database.close();
  rmSync(directory, { recursive: true, force: true });
});
const json = { "content-type": "application/json" };
printReady(app, {
  "better-auth": {
    method: "POST",
    path: "/better-auth/verify",
    headers: json,
    body: JSON.stringify({ key: plain.key }),
  },
  "better-auth+limit": {
    method: "POST",
    path: "/better-auth/verify-limited",
    headers: json,
    body: JSON.stringify({ key: limited.key }),
  },
  "basic-auth+rate-limit": {
    path: "/basic-auth/v1/api-keys/key_bench",
    headers: { authorization: `Basic ${Buffer.from(`lkid_bench:${secret}`).toString("base64")}` },
  },
});
