// A TCP port of 127.0.0.1 that nothing listens on: the kernel picks it, the listener is closed again.
import { once } from "node:events";
import { createServer } from "node:net";

export async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}
