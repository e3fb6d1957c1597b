// The platform service behind the gateway in the platform benchmark: plain node:http, a small
// constant JSON answer, so that the gateway and latchkey, not the upstream, are what is measured.
import { createServer } from "node:http";
import { stopOnSignal } from "./ready.mjs";

const answer = JSON.stringify({ id: "img_0123456789ABCDEFabcdef", status: "queued" });
const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.setHeader("content-type", "application/json");
    response.end(answer);
  });
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ ready: true, port, targets: {} })}\n`);
});
stopOnSignal(() => new Promise((done) => server.close(done)));
