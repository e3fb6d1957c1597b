import type { Socket } from "node:net";
import { expect, test, vi } from "vitest";
import { listeningApp, rawConnection } from "../helpers/raw-socket.js";

// Requests that reach a node while it closes: what it received before is answered, what arrives
// afterwards on a connection still open is `503 shutting_down` with `Connection: close`.

const HOST = "Host: 127.0.0.1\r\n";

/** The server's side of the connections it accepted, to see when it has read what a client sent. */
function serverSockets(server: { on(event: "connection", listener: (socket: Socket) => void): unknown }) {
  const sockets: Socket[] = [];
  server.on("connection", (socket) => sockets.push(socket));
  return sockets;
}

test("a request whose headers arrive while the app closes is 503 shutting_down with Connection: close", async () => {
  const testApp = await listeningApp();
  const accepted = serverSockets(testApp.app.server);
  const connection = await rawConnection(testApp.port);
  const start = `GET /healthz HTTP/1.1\r\n${HOST}`;
  connection.socket.write(start);
  await vi.waitFor(() => expect(accepted[0]?.bytesRead).toBe(start.length));

  const closed = testApp.app.close();
  connection.socket.write("\r\n");
  const response = await connection.response();
  expect(response.status).toBe(503);
  expect(response.headers.connection).toBe("close");
  expect(JSON.parse(response.body)).toMatchObject({
    statusCode: 503,
    error: "Service Unavailable",
    code: "shutting_down",
    message: expect.stringContaining("retry"),
  });
  await connection.closed;
  await closed;
});

test("a request received before the app closes is answered, with Connection: close", async () => {
  const testApp = await listeningApp({ env: { LATCHKEY_LOG_LEVEL: "debug" } });
  const owner = await testApp.createOrganization();
  const connection = await rawConnection(testApp.port);
  const body = JSON.stringify({ name: "made while closing", permissions: [] });
  connection.socket.write(
    `POST /v1/api-keys HTTP/1.1\r\n${HOST}Authorization: ${owner.headers.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  // Fastify logs each request it receives: the request is in flight once that line is there.
  await vi.waitFor(() => expect(testApp.logs.join("\n")).toContain("request received"));

  const closed = testApp.app.close();
  connection.socket.write(body.slice(5));
  const response = await connection.response();
  expect(response.status).toBe(200);
  expect(response.headers.connection).toBe("close");
  expect(JSON.parse(response.body)).toMatchObject({ name: "made while closing" });
  await connection.closed;
  await closed;
});
