import { expect, test, vi } from "vitest";
import { basicAuth, fakeClock } from "../helpers/build-test-app.js";
import { listeningApp, rawConnection } from "../helpers/raw-socket.js";

// What reaches the log, and at which level: a client's hang-up is ordinary traffic (info), refused
// credentials are worth an operator's eye (warn), rate-limited per api_id, and never carry a secret.

const HOST = "Host: 127.0.0.1\r\n";
const parsed = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>);

test("a client that disconnects mid-body is logged at info, not as an unhandled error", async () => {
  const testApp = await listeningApp({ env: { LATCHKEY_LOG_LEVEL: "debug" } });
  const owner = await testApp.createOrganization();
  const connection = await rawConnection(testApp.port);
  connection.socket.write(
    `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${owner.headers.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
  );
  await vi.waitFor(() => expect(testApp.logs.join("\n")).toContain("request received"));
  connection.socket.destroy();

  await vi.waitFor(() =>
    expect(parsed(testApp.logs)).toContainEqual(
      expect.objectContaining({ level: 30, msg: expect.stringContaining("client went away") }),
    ),
  );
  expect(parsed(testApp.logs).filter((line) => Number(line.level) >= 50)).toEqual([]);
});

test("a request that times out mid-body is logged at info, not as an error", async () => {
  const testApp = await listeningApp({ env: { LATCHKEY_REQUEST_TIMEOUT_SECONDS: "1" } });
  const owner = await testApp.createOrganization();
  const connection = await rawConnection(testApp.port);
  connection.socket.write(
    `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${owner.headers.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
  );
  expect((await connection.response()).status).toBe(408);
  await vi.waitFor(() =>
    expect(parsed(testApp.logs)).toContainEqual(
      expect.objectContaining({ level: 30, msg: expect.stringContaining("client went away") }),
    ),
  );
  expect(parsed(testApp.logs).filter((line) => Number(line.level) >= 50)).toEqual([]);
});

test("refused credentials are logged at warn once per api_id per minute, with the count, never the secret", async () => {
  const clock = fakeClock();
  const testApp = await listeningApp({ clock });
  const owner = await testApp.createOrganization();
  const wrong = basicAuth(
    owner.apiId,
    `${owner.secret.slice(0, -1)}${owner.secret.endsWith("a") ? "b" : "a"}`,
  );
  const refusalLines = () =>
    parsed(testApp.logs).filter((line) => String(line.msg).includes("credentials refused"));
  const refuse = async () => {
    const response = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: wrong });
    expect(response.statusCode).toBe(401);
  };

  for (let i = 0; i < 5; i += 1) await refuse();
  expect(refusalLines()).toEqual([expect.objectContaining({ level: 40, api_id: owner.apiId, refused: 1 })]);

  clock.advance(61_000);
  await refuse();
  expect(refusalLines()).toHaveLength(2);
  expect(refusalLines()[1]).toMatchObject({ level: 40, api_id: owner.apiId, refused: 5 });

  // A request without credentials is logged too, under its own name.
  await testApp.app.inject({ method: "GET", url: "/v1/api-keys" });
  expect(refusalLines()).toHaveLength(3);

  const everything = testApp.logs.join("\n");
  expect(everything).not.toContain(owner.secret);
  expect(everything).not.toContain(wrong.authorization.slice("Basic ".length));
});
