// Webhook delivery latency, from a change's acknowledgement to the receiver's verified receipt: one
// node (dist/main.js) over SQLite, a Standard Webhooks receiver on 127.0.0.1 verifying each delivery,
// `--keys` key creates one after the other (each waits for the previous event), at the default poll
// (LATCHKEY_WEBHOOKS_POLL_MS=1000) or `--poll <ms>`. See bench/README.md.
//   npm run build && node bench/webhook-latency.mjs [--keys 50] [--poll 1000]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";
import { freePort } from "./lib/free-port.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { keys: { type: "string", default: "50" }, poll: { type: "string", default: "1000" } },
});
const dir = mkdtempSync(join(tmpdir(), "latchkey-webhook-bench-"));
const env = {
  ...process.env,
  LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "db.sqlite")}`,
  LATCHKEY_DATABASE_CREATE: "on",
  LATCHKEY_BOOTSTRAP: "off",
  LATCHKEY_LOG_LEVEL: "warn",
  LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
  LATCHKEY_WEBHOOKS_POLL_MS: values.poll,
};
const created = JSON.parse(
  execFileSync(
    process.execPath,
    [join(repo, "dist/cli/bin.js"), "org", "create", "--name", "bench", "--json"],
    {
      env,
    },
  ).toString(),
);
// Many creates in a minute: the organization's api-key:write group is raised past them.
execFileSync(
  process.execPath,
  [
    join(repo, "dist/cli/bin.js"),
    "org",
    "limits",
    "--org",
    created.organization.id,
    "--group",
    "api-key:write",
    "--quota",
    "100000",
  ],
  { env },
);
const auth = `Basic ${Buffer.from(`${created.key.api_id}:${created.key.api_key}`).toString("base64")}`;
const port = await freePort();
const server = spawn(process.execPath, [join(repo, "dist/main.js")], {
  env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
  stdio: "inherit",
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (
    await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  if (i > 300) throw new Error("server not ready");
  await new Promise((r) => setTimeout(r, 100));
}

let webhook;
const arrivals = new Map();
const receiver = createServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  const event = webhook.verify(body, request.headers);
  const now = performance.now();
  const waiter = arrivals.get(event.data.key_id);
  // The event may arrive before the create's answer is read: keep its time for the waiter to come.
  if (waiter) waiter(now);
  else arrivals.set(event.data.key_id, now);
  response.writeHead(204).end();
});
const receiverPort = await freePort();
receiver.listen(receiverPort, "127.0.0.1");
const headers = { authorization: auth, "content-type": "application/json" };
const endpoint = await (
  await fetch(`${base}/v1/webhook-endpoints`, {
    method: "POST",
    headers,
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/`, events: ["api_key.created"] }),
  })
).json();
webhook = new Webhook(endpoint.secret);

const latencies = [];
for (let i = 0; i < Number(values.keys); i++) {
  const answer = await fetch(`${base}/v1/api-keys`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: `k${i}`, permissions: [] }),
  });
  const acknowledged = performance.now();
  const { id } = await answer.json();
  const early = arrivals.get(id);
  const received =
    typeof early === "number" ? early : await new Promise((resolve) => arrivals.set(id, resolve));
  latencies.push(received - acknowledged);
}
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(
  `webhook latency, change acknowledged -> verified receipt, ${latencies.length} events, poll ${values.poll} ms: ` +
    `p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms ` +
    `(load ${loadavg()[0].toFixed(2)})`,
);
server.kill("SIGTERM");
receiver.close();
rmSync(dir, { recursive: true, force: true });
