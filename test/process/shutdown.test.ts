import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { freePort } from "../helpers/free-port.js";
import { startServer, tempDir } from "../helpers/processes.js";
import { rawConnection } from "../helpers/raw-socket.js";

// SIGTERM on the built server (`node dist/main.js`) with real clients: it answers what it received and
// exits 0 within LATCHKEY_SHUTDOWN_GRACE_SECONDS plus one second, whatever its clients do.

const HOST = "Host: 127.0.0.1\r\n";

async function start(env: Record<string, string>) {
  const port = await freePort();
  const server = await startServer(
    {
      LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
      LATCHKEY_LOG_LEVEL: "debug",
      ...env,
    },
    port,
  );
  const apiId = /api_id:\s+(\S+)/.exec(server.stderr())?.[1] ?? "";
  const secret = /api_key:\s+(\S+)/.exec(server.stderr())?.[1] ?? "";
  return { ...server, port, authorization: basicAuth(apiId, secret).authorization };
}

test("a client sending one body byte a second cannot hold a stopping node: it exits 0 within the grace + 1 s", async () => {
  const grace = 1;
  const server = await start({
    LATCHKEY_SHUTDOWN_GRACE_SECONDS: String(grace),
    LATCHKEY_REQUEST_TIMEOUT_SECONDS: "120",
  });
  const slow = await rawConnection(server.port);
  slow.socket.write(
    `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${server.authorization}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
  );
  const trickle = setInterval(() => slow.socket.write(" "), 1000);
  try {
    // An idle keep-alive connection too, which must not hold it either.
    const idle = await rawConnection(server.port);
    idle.socket.write(`GET /healthz HTTP/1.1\r\n${HOST}\r\n`);
    expect((await idle.response()).status).toBe(200);
    await vi.waitFor(() => expect(server.stdout()).toContain('"url":"/v1/api-keys"'));

    const signalled = performance.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const seconds = (performance.now() - signalled) / 1000;
    expect(seconds).toBeLessThan(grace + 1);
    await slow.closed;
    await idle.closed;
    expect(server.stdout()).toContain("shutdown grace over");
  } finally {
    clearInterval(trickle);
  }
});

test("a request in flight when SIGTERM arrives is answered, then the node exits 0 without waiting for the grace", async () => {
  const server = await start({ LATCHKEY_SHUTDOWN_GRACE_SECONDS: "30" });
  const connection = await rawConnection(server.port);
  const body = JSON.stringify({ name: "made during shutdown", permissions: [] });
  connection.socket.write(
    `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${server.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
  );
  await vi.waitFor(() => expect(server.stdout()).toContain('"url":"/v1/api-keys"'));

  server.child.kill("SIGTERM");
  await vi.waitFor(() => expect(server.stdout()).toContain("shutting down"));
  connection.socket.write(body.slice(3));
  const response = await connection.response();
  expect(response.status).toBe(200);
  expect(response.headers.connection).toBe("close");
  expect(JSON.parse(response.body)).toMatchObject({ name: "made during shutdown" });
  expect(await server.exited).toBe(0);
  expect(server.stdout()).not.toContain("shutdown grace over");
});
