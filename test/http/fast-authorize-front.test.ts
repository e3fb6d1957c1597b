import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { expect, test } from "vitest";
import { bodyReplay } from "../../src/http/body-replay.js";
import { decisionHandover } from "../../src/http/decision-handover.js";
import { type FastAuthorizeOptions, fastAuthorize } from "../../src/http/fast-authorize.js";
import type { AccessControl } from "../../src/services/access-decision.js";
import { standInServer } from "../helpers/front-stand-in.js";
import { platformApp } from "../helpers/platform.js";

// Which authorize requests the front answers and which it hands to Fastify, with which decision and
// body. "Fastify" is a stand-in that answers 599 with what it was handed (test/helpers/front-stand-in.ts);
// test/http/fast-authorize.test.ts checks the whole app over real sockets.

const BODY_LIMIT = 1024;

async function front(overrides: Partial<FastAuthorizeOptions> = {}) {
  const platform = await platformApp({ env: { LATCHKEY_LOG_LEVEL: "warn" } });
  const { services } = platform.testApp;
  const handover = decisionHandover();
  const replay = bodyReplay();
  const { port, errors } = await standInServer(
    [
      fastAuthorize({
        access: services.access,
        serviceTokens: services.serviceTokens,
        handover,
        replay,
        bodyLimit: BODY_LIMIT,
        ...overrides,
      }),
    ],
    { handover, replay, freshness: services.freshness },
  );
  const valid = JSON.stringify({
    authorization: platform.owner.headers.authorization,
    permission: "images:create",
  });

  /** One request as a client would write it; headers as given (no defaults beyond Host). */
  const send = (options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    chunked?: boolean;
    /** Sends the headers, then the body 30 ms later, as two packets. */
    slowly?: boolean;
  }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const body = options.body ?? valid;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "x-latchkey-service-token": platform.serviceToken,
        ...(options.chunked
          ? { "transfer-encoding": "chunked" }
          : { "content-length": String(Buffer.byteLength(body)) }),
        ...options.headers,
      };
      const outgoing = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: options.method ?? "POST",
          path: options.path ?? "/v1/authorize",
          headers,
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      outgoing.on("error", reject);
      if (!options.slowly) return outgoing.end(body);
      outgoing.flushHeaders();
      setTimeout(() => outgoing.end(body), 30);
    });

  /** Sends the headers and half the body, then goes away. */
  const abandon = () =>
    new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `POST /v1/authorize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
            `X-Latchkey-Service-Token: ${platform.serviceToken}\r\nContent-Length: ${valid.length}\r\n\r\n` +
            valid.slice(0, 10),
        );
        setTimeout(() => socket.destroy(), 30);
        socket.on("close", () => resolve());
      });
    });
  return { send, abandon, valid, errors };
}

const handed = (decided: string, body?: string) => ({
  status: 599,
  body: JSON.stringify({ decided, ...(body === undefined ? {} : { body }) }),
});

test("a valid token and body are answered in front with the decision", async () => {
  const { send } = await front();
  const answer = await send({});
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({ allowed: true, status: 200 });
});

test("a body that comes in a later packet than its headers is read as it comes, and answered in front", async () => {
  const { send } = await front();
  const answer = await send({ slowly: true });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({ allowed: true, status: 200 });
});

test("a client that goes away in the middle of its body gets nothing, and breaks nothing", async () => {
  const { send, abandon, errors } = await front();
  await abandon();
  expect(errors).toEqual([]);
  expect((await send({})).status).toBe(200);
});

test("requests that are not exactly the route's plain JSON POST go to Fastify unread and undecided", async () => {
  const { send, valid } = await front();
  for (const [label, request] of [
    ["a query string", { path: "/v1/authorize?x=1" }],
    ["a trailing slash", { path: "/v1/authorize/" }],
    ["another method", { method: "PUT" }],
    ["text/plain", { headers: { "content-type": "text/plain" } }],
    ["another charset", { headers: { "content-type": "application/json; charset=latin1" } }],
    ["no content type", { headers: { "content-type": "" } }],
    ["a chunked body", { chunked: true }],
    ["a compressed body", { headers: { "content-encoding": "gzip" } }],
    ["a body over the limit", { body: valid.replace("}", `,"pad":"${"x".repeat(BODY_LIMIT)}"}`) }],
    ["an empty body", { body: "" }],
  ] as const) {
    expect({ label, ...(await send(request)) }).toEqual({ label, ...handed("nothing") });
  }
});

test("an invalid service token goes to Fastify before the body is read, for its 401", async () => {
  const { send } = await front();
  for (const token of ["", "lkst_typo", `lkst_${"0".repeat(36)}`]) {
    expect(await send({ headers: { "x-latchkey-service-token": token } })).toEqual(handed("nothing"));
  }
});

test("a body the route refuses goes to Fastify undecided, with the body read, for its 400", async () => {
  const { send, valid } = await front();
  const question = JSON.parse(valid) as Record<string, unknown>;
  for (const body of [
    "{not json",
    "null",
    "{}",
    JSON.stringify({ ...question, permission: "images:fly" }),
    JSON.stringify({ ...question, group: "nope" }),
    JSON.stringify({ ...question, credits: 1.5 }),
    `{"__proto__":{"x":1},${valid.slice(1)}`,
    `{"constructor":{"prototype":{"x":1}},${valid.slice(1)}`,
  ]) {
    expect({ sent: body, ...(await send({ body })) }).toEqual({ sent: body, ...handed("nothing", body) });
  }
});

test("a decision that throws is handed to Fastify as the failure, with the body read", async () => {
  const failing: AccessControl = {
    decide: () => Promise.reject(new Error("database gone")),
    authenticate: () => Promise.reject(new Error("database gone")),
    decideFor: () => Promise.reject(new Error("database gone")),
  };
  const { send, valid } = await front({ access: failing });
  expect(await send({})).toEqual(handed("failure", valid));
});
