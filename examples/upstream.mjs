// A stand-in for the platform service behind the gateway (docs/gateways.md): it answers every request
// with what it received (method, URL, the X-Latchkey-* headers the gateway added, the body), so you can
// see what a request latchkey allowed brings your service. Node.js alone, no dependency:
//
//   node examples/upstream.mjs            # http://127.0.0.1:9000 (PORT to change it)
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 9000);
const server = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const latchkey = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name.startsWith("x-latchkey-")),
    );
    response.setHeader("content-type", "application/json");
    response.end(
      `${JSON.stringify({
        service: "upstream stand-in",
        method: request.method,
        url: request.url,
        latchkey,
        body: Buffer.concat(chunks).toString("utf8"),
      })}\n`,
    );
  });
});
server.listen(port, "127.0.0.1", () => console.log(`upstream stand-in on http://127.0.0.1:${port}`));
// Stops at once on Ctrl-C or SIGTERM (a shell job, a supervisor).
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => server.close(() => process.exit(0)));
