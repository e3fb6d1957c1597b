import { expect, test } from "vitest";
import { decisionHandover } from "../../src/http/decision-handover.js";
import { fastKeyRead, type FastKeyReadOptions } from "../../src/http/fast-key-read.js";
import { keyBodies } from "../../src/http/key-response.js";
import type { AccessControl } from "../../src/services/access-decision.js";
import { buildTestApp } from "../helpers/build-test-app.js";
import { standInServer } from "../helpers/front-stand-in.js";
import { UNKNOWN_KEY_ID } from "../helpers/http-keys.js";

// Which requests the front answers and which it hands to Fastify, with which decision. "Fastify" here
// is a stand-in that answers 599 and reports what it was handed (test/helpers/front-stand-in.ts);
// test/http/fast-key-read.test.ts checks the whole app over real sockets.

interface FrontOverrides extends Partial<FastKeyReadOptions> {
  logsEveryRequest?: () => boolean;
}

async function front({ logsEveryRequest, ...overrides }: FrontOverrides = {}) {
  const testApp = await buildTestApp({ env: { LATCHKEY_LOG_LEVEL: "warn" } });
  const owner = await testApp.createOrganization();
  const { services } = testApp;
  const handover = decisionHandover();
  const bodies = keyBodies();
  const { port, errors, close } = await standInServer(
    [fastKeyRead({ access: services.access, keys: services.keys, bodies, handover, ...overrides })],
    { handover, freshness: services.freshness, ...(logsEveryRequest && { logsEveryRequest }) },
  );
  const send = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      ...init,
      headers: { ...owner.headers, ...(init.headers as Record<string, string>) },
    });
    return { status: response.status, body: await response.text() };
  };
  /** The body the route sends for the owner's key as it is now. */
  const ownerBody = async () => {
    const caller = await services.store.findKeyByApiId(owner.apiId);
    if (!caller) throw new Error("owner key not found");
    return bodies.of(await services.keys.get(caller, owner.id));
  };
  return { owner, send, close, errors, ownerBody };
}

test("an allowed read of a key that exists is answered in front, from the first request on", async () => {
  const { owner, send, ownerBody } = await front();
  const path = `/v1/api-keys/${owner.id}`;
  const first = await send(path);
  // The first use records the key's last use (a new record), so the body is the one read after it.
  expect(first).toEqual({ status: 200, body: await ownerBody() });
  expect(await send(path)).toEqual(first);
});

test("refusals and unknown keys go to Fastify with their decision, to be answered by the route", async () => {
  const { owner, send } = await front();
  const wrongSecret = `Basic ${Buffer.from(`${owner.apiId}:lksk_wrong`).toString("base64")}`;
  expect(await send(`/v1/api-keys/${owner.id}`, { headers: { authorization: wrongSecret } })).toEqual({
    status: 599,
    body: JSON.stringify({ decided: "unauthorized" }),
  });
  // Admitted (the slot is taken) but no such key: the route's own read answers the 404.
  expect(await send(`/v1/api-keys/${UNKNOWN_KEY_ID}`)).toEqual({
    status: 599,
    body: JSON.stringify({ decided: "allowed" }),
  });
});

test("requests the route does not match exactly go to Fastify undecided", async () => {
  const { owner, send } = await front();
  const undecided = { status: 599, body: JSON.stringify({ decided: "nothing" }) };
  for (const [path, method] of [
    [`/v1/api-keys/${owner.id}?fields=all`, "GET"],
    [`/v1/api-keys/${owner.id}/`, "GET"],
    [`/v1/api-keys/key_short`, "GET"],
    [`/v1/api-keys/${owner.id.replace("key_", "key%5F")}`, "GET"],
    [`/V1/api-keys/${owner.id}`, "GET"],
    [`/v1/api-keys/${owner.id}`, "HEAD"],
    [`/v1/api-keys/${owner.id}`, "DELETE"],
    ["/v1/api-keys", "GET"],
  ] as const) {
    const answer = await send(path, { method });
    expect({ path, method, ...answer }).toEqual({
      path,
      method,
      status: 599,
      body: method === "HEAD" ? "" : undecided.body,
    });
  }
});

test("while every request is logged, or once closed, every request goes to Fastify undecided", async () => {
  let logging = false;
  const { owner, send, close } = await front({ logsEveryRequest: () => logging });
  const path = `/v1/api-keys/${owner.id}`;
  expect((await send(path)).status).toBe(200);
  const undecided = { status: 599, body: JSON.stringify({ decided: "nothing" }) };
  logging = true;
  expect(await send(path)).toEqual(undecided);
  logging = false;
  expect((await send(path)).status).toBe(200);
  close();
  expect(await send(path)).toEqual(undecided);
});

test("a decision that throws is handed to Fastify as the failure, to be answered and logged there", async () => {
  const failing: AccessControl = {
    decide: () => Promise.reject(new Error("database gone")),
    authenticate: () => Promise.reject(new Error("database gone")),
    decideFor: () => Promise.reject(new Error("database gone")),
  };
  const { owner, send, errors } = await front({ access: failing });
  expect(await send(`/v1/api-keys/${owner.id}`)).toEqual({
    status: 599,
    body: JSON.stringify({ decided: "failure" }),
  });
  expect(errors).toEqual([]);
});
