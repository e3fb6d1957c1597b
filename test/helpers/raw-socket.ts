import { connect, type Socket } from "node:net";
import { onTestFinished } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "./build-test-app.js";

/** One HTTP/1.1 response as read off the wire. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/** A test app listening on a port the OS chose, for clients that write raw bytes. */
export async function listeningApp(options: TestAppOptions = {}): Promise<TestApp & { port: number }> {
  const testApp = await buildTestApp(options);
  await testApp.app.listen({ port: 0, host: "127.0.0.1" });
  const address = testApp.app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { ...testApp, port: address.port };
}

/** Parses the first response in `text`, or undefined while it is incomplete. */
export function parseResponse(text: string): RawResponse | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  const body = Buffer.from(text.slice(end + 4), "latin1");
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: body.subarray(0, length).toString("utf8"),
  };
}

/** A raw TCP connection to `port`: write bytes, then wait for the answer or for the server to close. */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1 (bytes preserved). */
  received(): string;
  /** Resolves once the server has closed the connection (or it was reset). */
  closed: Promise<void>;
  /** Resolves with the first complete response. */
  response(): Promise<RawResponse>;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect({ port, host: "127.0.0.1" });
  onTestFinished(() => {
    socket.destroy();
  });
  let text = "";
  const waiting = new Set<() => void>();
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    for (const wake of waiting) wake();
  });
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return {
    socket,
    received: () => text,
    closed,
    response: () =>
      new Promise<RawResponse>((resolve, reject) => {
        const check = () => {
          const parsed = parseResponse(text);
          if (parsed) {
            waiting.delete(check);
            resolve(parsed);
          }
        };
        waiting.add(check);
        check();
        void closed.then(() => {
          check();
          if (waiting.has(check))
            reject(new Error(`connection closed without a response: ${JSON.stringify(text)}`));
        });
      }),
  };
}

/** Sends `bytes` on a new connection and returns the first response. */
export async function rawRequest(port: number, bytes: string | Buffer): Promise<RawResponse> {
  const connection = await rawConnection(port);
  connection.socket.write(bytes);
  return connection.response();
}
