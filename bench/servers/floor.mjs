// The floor: the least work a key read with latchkey's promises can do, written directly on Fastify
// with none of latchkey's code, to tell how near the goals any implementation could come on the
// machine. Per request, as the key read: the access log's line (as bare-logged.mjs), Basic
// credentials parsed, the key found by api_id in a Map, its secret's SHA-256 compared in constant
// time, the permission checked, one slot taken in an in-memory sliding window, the record found by id
// and serialized through a response schema, and the request counted and timed in prom-client. Left
// out, so the floor is lower than any real implementation: the database and the check that keeps its
// caches exact, and everything a refusal needs. `floor-authorize` and `floor-authorize+credit` do the
// same for `POST /v1/authorize` (below); BENCH_REDIS_URL adds the read with a sliding log shared in
// Redis (`floor+redis`).
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { Redis } from "ioredis";
import { Counter, Histogram, Registry } from "prom-client";
import { document } from "./key-document.mjs";
import { loggedFastify } from "./logged-fastify.mjs";
import { printReady, stopOnSignal } from "./ready.mjs";

const { app, close } = loggedFastify("floor");

// One-shot hashing, as latchkey hashes secrets (cheaper than createHash().update().digest()).
const sha256 = (text) => hash("sha256", text, "buffer");
const secret = randomBytes(24).toString("base64url");
const caller = {
  apiId: "lkid_0123456789ABCDEFabcdef",
  secretHash: sha256(secret),
  permissions: ["api_keys:read", "images:create"],
};
// The key as a decision names it.
const decisionKey = {
  id: document.id,
  api_id: caller.apiId,
  permissions: caller.permissions,
  all_future_permissions: false,
};
const callers = new Map([[caller.apiId, caller]]);
const records = new Map([[document.id, document]]);
// An exact sliding log: the time of every admitted request of the last minute, oldest first from `head`.
const window = { quota: 1e9, ms: 60_000, times: [], head: 0 };

const registry = new Registry();
const requests = new Counter({
  name: "requests_total",
  help: "-",
  labelNames: ["route", "status"],
  registers: [registry],
});
const duration = new Histogram({
  name: "duration_seconds",
  help: "-",
  labelNames: ["route", "status"],
  registers: [registry],
});

app.addHook("onResponse", (request, reply, done) => {
  const labels = { route: request.routeOptions.url, status: String(reply.statusCode) };
  requests.inc(labels);
  duration.observe(labels, reply.elapsedTime / 1000);
  done();
});

const schema = {
  response: {
    200: {
      type: "object",
      properties: Object.fromEntries(
        Object.entries(document).map(([name, value]) => [
          name,
          Array.isArray(value) ? { type: "array", items: { type: "string" } } : { type: typeof value },
        ]),
      ),
    },
  },
};

/** The key a Basic Authorization value names, when its secret matches; null otherwise. */
function keyOf(authorization) {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  const decoded = match ? Buffer.from(match[1], "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  const key = callers.get(decoded.slice(0, colon));
  if (colon <= 0 || !key || !timingSafeEqual(sha256(decoded.slice(colon + 1)), key.secretHash)) return null;
  return key;
}

/** The caller of a request, after its credentials and permission; null when the reply was sent. */
function callerOf(request, reply) {
  const key = keyOf(request.headers.authorization ?? "");
  if (!key) {
    reply.code(401).send();
    return null;
  }
  if (!key.permissions.includes("api_keys:read")) {
    reply.code(403).send();
    return null;
  }
  return key;
}

app.get("/v1/api-keys/:id", { schema }, async (request, reply) => {
  if (!callerOf(request, reply)) return reply;
  const now = Date.now();
  while (window.head < window.times.length && window.times[window.head] <= now - window.ms) window.head++;
  if (window.head > 65_536) {
    window.times = window.times.slice(window.head);
    window.head = 0;
  }
  if (window.times.length - window.head >= window.quota) return reply.code(429).send();
  window.times.push(now);
  return records.get(request.params.id) ?? reply.code(404).send();
});

// The floor of `POST /v1/authorize` as a platform calls it: the service token's SHA-256 compared in
// constant time, the JSON body parsed and its fields checked, the caller's credentials and permission
// as above, and the decision serialized through a response schema. With `credits`, the allowance
// checked and the credits counted in memory only: latchkey records them durably, so this floor does
// less than any real implementation can.
const serviceToken = randomBytes(24).toString("base64url");
const serviceTokenHash = sha256(serviceToken);
const allowance = { allowed: 1e12, used: 0 };
const decisionSchema = {
  response: {
    200: {
      type: "object",
      properties: {
        allowed: { type: "boolean" },
        status: { type: "integer" },
        organization_id: { type: "string" },
        key: {
          type: "object",
          properties: {
            id: { type: "string" },
            api_id: { type: "string" },
            permissions: { type: "array", items: { type: "string" } },
            all_future_permissions: { type: "boolean" },
          },
        },
        headers: { type: "object", additionalProperties: { type: "string" } },
        error: { type: "null" },
      },
    },
  },
};

// Bodies as latchkey parses them: the bytes decoded and given to JSON.parse, nothing else checked.
app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
  try {
    done(null, JSON.parse(body.toString("utf8")));
  } catch (error) {
    error.statusCode = 400;
    done(error, undefined);
  }
});

app.post("/v1/authorize", { schema: decisionSchema }, async (request, reply) => {
  const token = request.headers["x-latchkey-service-token"];
  if (typeof token !== "string" || !timingSafeEqual(sha256(token), serviceTokenHash)) {
    return reply.code(401).send();
  }
  const body = request.body;
  const credits = body?.credits ?? 0;
  if (
    typeof body?.authorization !== "string" ||
    typeof body.permission !== "string" ||
    !Number.isInteger(credits)
  ) {
    return reply.code(400).send();
  }
  const key = keyOf(body.authorization);
  if (!key) return { allowed: false, status: 401, error: null };
  if (!key.permissions.includes(body.permission)) return { allowed: false, status: 403, error: null };
  const headers = {};
  if (credits > 0) {
    if (allowance.used + credits > allowance.allowed) return { allowed: false, status: 429, error: null };
    allowance.used += credits;
    headers["x-renders-allowed"] = String(allowance.allowed);
    headers["x-renders-consumed"] = String(credits);
    headers["x-renders-used"] = String(allowance.used);
  }
  return {
    allowed: true,
    status: 200,
    organization_id: "org_0123456789ABCDEFabcdef",
    key: decisionKey,
    headers,
    error: null,
  };
});

// With BENCH_REDIS_URL, the same read with its slot taken in a sliding log shared in Redis (one
// script, one round trip), as several nodes need it: the floor of the PostgreSQL + Redis read.
const redis = process.env.BENCH_REDIS_URL ? new Redis(process.env.BENCH_REDIS_URL) : null;
const bucket = `latchkey-bench-floor:${randomBytes(6).toString("hex")}`;
redis?.defineCommand("takeSlot", {
  numberOfKeys: 1,
  lua: `redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[1] - ARGV[2])
    if redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
    redis.call("ZADD", KEYS[1], ARGV[1], ARGV[4])
    redis.call("PEXPIRE", KEYS[1], ARGV[2])
    return 1`,
});
let sequence = 0;
app.get("/shared/v1/api-keys/:id", { schema }, async (request, reply) => {
  if (!callerOf(request, reply)) return reply;
  const now = Date.now();
  if (!(await redis.takeSlot(bucket, now, window.ms, window.quota, `${now}-${sequence++}`))) {
    return reply.code(429).send();
  }
  return records.get(request.params.id) ?? reply.code(404).send();
});

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(async () => {
  await close();
  await redis?.del(bucket);
  redis?.disconnect();
});
const authorization = `Basic ${Buffer.from(`${caller.apiId}:${secret}`).toString("base64")}`;
const authorizeHeaders = { "content-type": "application/json", "x-latchkey-service-token": serviceToken };
const authorizeBody = (extra) => JSON.stringify({ authorization, permission: "images:create", ...extra });
printReady(app, {
  floor: { path: `/v1/api-keys/${document.id}`, headers: { authorization } },
  "floor-authorize": {
    method: "POST",
    path: "/v1/authorize",
    headers: authorizeHeaders,
    body: authorizeBody({}),
  },
  "floor-authorize+credit": {
    method: "POST",
    path: "/v1/authorize",
    headers: authorizeHeaders,
    body: authorizeBody({ credits: 1 }),
  },
  ...(redis
    ? { "floor+redis": { path: `/shared/v1/api-keys/${document.id}`, headers: { authorization } } }
    : {}),
});
