// What an MCP tool call costs against the same operation over REST, on one server process: a new SDK
// server and transport per request (stateless Streamable HTTP) plus JSON-RPC framing, against a plain
// Fastify route. Both read the same proxy through the same access decision and service; the groups'
// allowance is raised so no request is refused. Figures are ratios of the two, measured in alternating
// rounds in the same run (the machine is shared).
//   npm run build && node bench/mcp.mjs [--duration 5] [--rounds 3] [--connections 10]
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { freePort } from "./lib/free-port.mjs";

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const seconds = argument("duration", 5);
const rounds = argument("rounds", 3);
const connections = argument("connections", 10);
const root = new URL("..", import.meta.url).pathname;

const directory = mkdtempSync(join(tmpdir(), "latchkey-bench-mcp-"));
const env = {
  ...process.env,
  LATCHKEY_DATABASE_URL: `sqlite:${join(directory, "latchkey.db")}`,
  LATCHKEY_LOG_LEVEL: "warn",
  // The first start's credentials on standard error, where this script reads them.
  LATCHKEY_BOOTSTRAP: "print",
  HOST: "127.0.0.1",
  PORT: String(await freePort()),
};
const child = spawn(process.execPath, [join(root, "dist/main.js")], {
  env,
  stdio: ["ignore", "ignore", "pipe"],
});
let stderr = "";
child.stderr.on("data", (chunk) => (stderr += chunk));
const base = `http://127.0.0.1:${env.PORT}`;
try {
  for (
    let i = 0;
    !/api_key:\s+\S+/.test(stderr) || !(await fetch(`${base}/healthz`).catch(() => null))?.ok;
    i++
  ) {
    if (i > 200) throw new Error(`server did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const field = (name) => new RegExp(`${name}:\\s+(\\S+)`).exec(stderr)[1];
  const authorization = `Basic ${Buffer.from(`${field("api_id")}:${field("api_key")}`).toString("base64")}`;
  for (const group of ["proxy:read", "proxy:write"]) {
    execFileSync(
      process.execPath,
      [
        join(root, "dist/cli/bin.js"),
        "org",
        "limits",
        "--org",
        field("organization"),
        "--group",
        group,
        "--quota",
        "1000000000",
      ],
      { env },
    );
  }
  const created = await fetch(`${base}/v1/proxies`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", settings: { url: "http://proxy.internal:3128" } }),
  }).then((response) => response.json());

  const targets = {
    rest: { url: `${base}/v1/proxies/${created.id}`, method: "GET", headers: { authorization } },
    mcp: {
      url: `${base}/mcp`,
      method: "POST",
      headers: {
        authorization,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_proxy", arguments: { id: created.id } },
      }),
    },
  };
  const check = await fetch(targets.mcp.url, targets.mcp).then((response) => response.json());
  if (check.result?.structuredContent?.item?.id !== created.id)
    throw new Error(`MCP probe: ${JSON.stringify(check)}`);

  const results = { rest: [], mcp: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ["rest", "mcp"] : ["mcp", "rest"]) {
      const result = await autocannon({ ...targets[name], connections, duration: seconds });
      if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${name}: failures`);
      results[name].push({ rps: result.requests.average, p50: result.latency.p50 });
      console.log(
        `round ${round + 1} ${name}: ${result.requests.average.toFixed(0)} requests/s, p50 ${result.latency.p50} ms`,
      );
    }
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rest = median(results.rest.map((r) => r.rps));
  const mcp = median(results.mcp.map((r) => r.rps));
  console.log(
    `median requests/s: REST ${rest.toFixed(0)}, MCP ${mcp.toFixed(0)}; MCP/REST = ${(mcp / rest).toFixed(2)}`,
  );
} finally {
  child.kill("SIGTERM");
  rmSync(directory, { recursive: true, force: true });
}
