import { expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { listeningApp, rawConnection, rawRequest, type RawResponse } from "../helpers/raw-socket.js";

// What Node's HTTP parser and Fastify's router answer before any route runs, sent as raw bytes over a
// real socket: every answer of 400 and above carries the documented error body with a code.

/** The documented error body: `{statusCode, error, message, code}`, the status matching the line's. */
function expectDocumentedError(response: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ statusCode: status, code });
  expect(typeof body.error).toBe("string");
  expect(typeof body.message).toBe("string");
  expect(String(body.message).length).toBeGreaterThan(0);
  return body;
}

const HOST = "Host: 127.0.0.1\r\n";

/** POST /v1/api-keys with `headers` (each ending in CRLF) after the caller's credentials. */
const post = (authorization: string, headers: string) =>
  `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${authorization}\r\n${headers}\r\n`;
const json = "Content-Type: application/json\r\n";

interface BatteryCase {
  label: string;
  /** The bytes sent, given the owner's `Authorization` value. */
  bytes: (authorization: string) => string;
  status: number;
  code: string;
}

const battery: BatteryCase[] = [
  {
    label: "bad chunked framing (a chunk size that is not hex)",
    bytes: (auth) => `${post(auth, `${json}Transfer-Encoding: chunked\r\n`)}zz\r\n{}\r\n0\r\n\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "Transfer-Encoding and Content-Length together",
    bytes: (auth) =>
      `${post(auth, `${json}Transfer-Encoding: chunked\r\nContent-Length: 7\r\n`)}2\r\n{}\r\n0\r\n\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "a Content-Length that is not a number",
    bytes: (auth) => `${post(auth, `${json}Content-Length: abc\r\n`)}{}`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "two different Content-Length values",
    bytes: (auth) => `${post(auth, `${json}Content-Length: 2\r\nContent-Length: 3\r\n`)}{}`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "the same Content-Length twice",
    bytes: (auth) => `${post(auth, `${json}Content-Length: 2\r\nContent-Length: 2\r\n`)}{}`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "a header name with a space",
    bytes: () => `GET /healthz HTTP/1.1\r\n${HOST}Bad Header: x\r\n\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "an unknown method",
    bytes: () => `BREW /healthz HTTP/1.1\r\n${HOST}\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "no Host header on HTTP/1.1",
    bytes: () => "GET /healthz HTTP/1.1\r\n\r\n",
    status: 400,
    code: "invalid_request",
  },
  {
    label: "headers over 16 KiB",
    bytes: () => `GET /healthz HTTP/1.1\r\n${HOST}X-Padding: ${"a".repeat(20_000)}\r\n\r\n`,
    status: 431,
    code: "headers_too_large",
  },
  {
    label: "a URL over 16 KiB",
    bytes: () => `GET /v1/api-keys?x=${"a".repeat(20_000)} HTTP/1.1\r\n${HOST}\r\n`,
    status: 431,
    code: "headers_too_large",
  },
  {
    label: "a path segment over the router's limit",
    bytes: (auth) => `GET /v1/api-keys/${"k".repeat(300)} HTTP/1.1\r\n${HOST}Authorization: ${auth}\r\n\r\n`,
    status: 414,
    code: "uri_too_long",
  },
  {
    label: "a bad % escape in a key's path",
    bytes: (auth) => `GET /v1/api-keys/%E0%A4%A HTTP/1.1\r\n${HOST}Authorization: ${auth}\r\n\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "a bad % escape in a family's path",
    bytes: (auth) => `GET /v1/proxies/%zz HTTP/1.1\r\n${HOST}Authorization: ${auth}\r\n\r\n`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "a body over 64 KiB",
    bytes: (auth) => `${post(auth, `${json}Content-Length: 100000\r\n`)}${"x".repeat(100_000)}`,
    status: 413,
    code: "payload_too_large",
  },
  {
    label: "a chunked body over 64 KiB",
    bytes: (auth) =>
      `${post(auth, `${json}Transfer-Encoding: chunked\r\n`)}${"10000\r\n" + "x".repeat(0x10000) + "\r\n"}` +
      `${"10\r\n" + "x".repeat(16) + "\r\n"}0\r\n\r\n`,
    status: 413,
    code: "payload_too_large",
  },
  {
    label: "a body that is not JSON",
    bytes: (auth) => `${post(auth, "Content-Type: text/plain\r\nContent-Length: 2\r\n")}hi`,
    status: 415,
    code: "unsupported_media_type",
  },
  {
    label: "a body without a type",
    bytes: (auth) => `${post(auth, "Content-Length: 2\r\n")}{}`,
    status: 415,
    code: "unsupported_media_type",
  },
  {
    label: "a body that is not JSON at all",
    bytes: (auth) => `${post(auth, `${json}Content-Length: 5\r\n`)}{"a":`,
    status: 400,
    code: "invalid_request",
  },
  {
    label: "an unknown path",
    bytes: () => `GET /nowhere HTTP/1.1\r\n${HOST}\r\n`,
    status: 404,
    code: "not_found",
  },
  {
    label: "an unknown method on a known path",
    bytes: () => `PUT /v1/api-keys HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n`,
    status: 405,
    code: "method_not_allowed",
  },
  {
    label: "no credentials",
    bytes: () => `GET /v1/api-keys HTTP/1.1\r\n${HOST}\r\n`,
    status: 401,
    code: "unauthorized",
  },
];

test.each(battery)("$label: $status $code in the documented body", async ({ bytes, status, code }) => {
  const testApp = await listeningApp();
  const owner = await testApp.createOrganization();
  expectDocumentedError(await rawRequest(testApp.port, bytes(owner.headers.authorization)), status, code);
});

test("the 413 and 415 messages say what to send instead", async () => {
  const testApp = await listeningApp();
  const auth = (await testApp.createOrganization()).headers.authorization;
  const tooLarge = expectDocumentedError(
    await rawRequest(
      testApp.port,
      `${post(auth, `${json}Content-Length: 100000\r\n`)}${"x".repeat(100_000)}`,
    ),
    413,
    "payload_too_large",
  );
  expect(tooLarge.message).toContain("at most 64 KiB");
  const notJson = expectDocumentedError(
    await rawRequest(testApp.port, `${post(auth, "Content-Type: text/plain\r\nContent-Length: 2\r\n")}hi`),
    415,
    "unsupported_media_type",
  );
  expect(notJson.message).toContain("Content-Type: application/json");
});

test("a body that is not valid UTF-8 is 400 invalid_request, never stored with replacement characters", async () => {
  const testApp = await listeningApp();
  const owner = await testApp.createOrganization();
  const body = Buffer.concat([
    Buffer.from('{"name":"caf'),
    Buffer.from([0xe9]),
    Buffer.from('","permissions":[]}'),
  ]);
  const response = await rawRequest(
    testApp.port,
    Buffer.concat([
      Buffer.from(
        `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${basicAuth(owner.apiId, owner.secret).authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      ),
      body,
    ]),
  );
  const error = expectDocumentedError(response, 400, "invalid_request");
  expect(error.message).toContain("not valid UTF-8");
});

test("a body sent one byte at a time is answered 408 request_timeout and its connection closed", async () => {
  const testApp = await listeningApp({ env: { LATCHKEY_REQUEST_TIMEOUT_SECONDS: "1" } });
  const owner = await testApp.createOrganization();
  const connection = await rawConnection(testApp.port);
  connection.socket.write(post(owner.headers.authorization, `${json}Content-Length: 100\r\n`));
  const trickle = setInterval(() => connection.socket.write("{"), 200);
  try {
    const response = await connection.response();
    const error = expectDocumentedError(response, 408, "request_timeout");
    expect(error.message).toContain("within 1 second;");
    await connection.closed;
  } finally {
    clearInterval(trickle);
  }
});

test("headers never finished are answered 408 request_timeout and the connection closed", async () => {
  const { port } = await listeningApp({ env: { LATCHKEY_REQUEST_TIMEOUT_SECONDS: "1" } });
  const connection = await rawConnection(port);
  connection.socket.write(`GET /healthz HTTP/1.1\r\n${HOST}X-Slow: `);
  expectDocumentedError(await connection.response(), 408, "request_timeout");
  await connection.closed;
});
