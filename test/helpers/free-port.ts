import { once } from "node:events";
import { createServer } from "node:net";

/** A TCP port of 127.0.0.1 that nobody listens on right now: the kernel picks it, the listener closes. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  await new Promise((closed) => server.close(closed));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}
