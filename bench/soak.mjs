// The soak (not in CI): three latchkey nodes (`node dist/main.js`) over a PostgreSQL cluster and a
// redis-server of the script's own, under steady open-loop load for --minutes (default 30), with the
// faults of the reliability contract injected on a schedule, in turn: every PostgreSQL backend
// terminated, a Redis stall (SIGSTOP for --stall-ms), a PostgreSQL restart (pg_ctl restart), a Redis
// restart (SIGTERM, started again from its append-only file), and a node SIGKILLed and started again.
// The promises it checks all along, and prints at the end:
//   - 0 over-admissions: authorize calls counted in one group (quota --quota per 60 s window) never
//     admit more than the quota inside any 60 s (judged on admissions whose whole request lay inside it);
//   - 0 acknowledged writes lost: every key create answered with its key is in the final listing;
//   - 0 5xx other than the documented 503s (database_unavailable, rate_limiter_unavailable,
//     service_unavailable, shutting_down), on REST and inside authorize's decisions;
//   - heap flat: each node process's used heap, sampled from /metrics, over the run's second half no
//     more than --heap-growth (default 1.5) times its level in the first half.
// Exit status 0 when every promise held, 1 otherwise.
//   npm run build && node bench/soak.mjs [--minutes 30] [--rate 150] [--fault-every 60] [--quota 300]
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes, randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "./lib/free-port.mjs";
import { startOwnPostgres } from "./lib/own-postgres.mjs";
import { startOwnRedis } from "./lib/own-redis.mjs";
import { startSoakLoad } from "./lib/soak-load.mjs";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    rate: { type: "string", default: "150" },
    "fault-every": { type: "string" },
    quota: { type: "string", default: "300" },
    "stall-ms": { type: "string", default: "3000" },
    "heap-growth": { type: "string", default: "1.5" },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
// Each fault at least twice in the run, and none closer than 20 s to the last.
const faultEverySeconds = Number(values["fault-every"] ?? Math.max(20, Math.floor((minutes * 60) / 11)));
const quota = Number(values.quota);
const stallMs = Number(values["stall-ms"]);
const heapGrowth = Number(values["heap-growth"]);
const root = new URL("../", import.meta.url).pathname;
const MAIN = join(root, "dist", "main.js");
const CLI = join(root, "dist", "cli", "bin.js");
const say = (line) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function cli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`latchkey ${args.join(" ")}: ${stderr}`)),
    );
  });
}

/** One node process on a port of its own; `start` again after a kill reuses the port. */
async function nodeProcess(env, index) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let child;
  let output = "";
  const node = {
    index,
    baseUrl,
    /** Node processes started so far (a restart is a new heap). */
    generation: 0,
    output: () => output,
    async start() {
      child = spawn(process.execPath, [MAIN], {
        env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LATCHKEY_LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
      child.stderr.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
      node.generation++;
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`node ${index} exited: ${output.slice(-1000)}`);
        const healthy = await fetch(`${baseUrl}/healthz`).then(
          (reply) => reply.ok,
          () => false,
        );
        if (healthy) return;
        if (Date.now() > deadline) throw new Error(`node ${index} did not start: ${output.slice(-1000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async kill() {
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
  await node.start();
  return node;
}

say(`starting: ${minutes} min, ${rate} requests/s, a fault every ${faultEverySeconds} s; load ${loadavg()}`);
const postgres = await startOwnPostgres();
const redis = await startOwnRedis();
const database = {
  LATCHKEY_DATABASE_URL: postgres.url,
  LATCHKEY_BOOTSTRAP: "off",
  // The same on the CLI and every node: it keys the secrets' hashes and the idempotent creates' answers.
  LATCHKEY_SECRET_PEPPER: randomBytes(32).toString("hex"),
};
const created = async (name) => JSON.parse(await cli(["org", "create", "--name", name, "--json"], database));
const limited = await created("soak-limited");
const writer = await created("soak-writer");
for (const [org, group, groupQuota] of [
  [limited.organization.id, "api-key:read", quota],
  [writer.organization.id, "api-key:read", 1_000_000],
  [writer.organization.id, "api-key:write", 1_000_000],
]) {
  await cli(["org", "limits", "--org", org, "--group", group, "--quota", String(groupQuota)], database);
}
await cli(["org", "limits", "--org", writer.organization.id, "--max-keys", "1000000"], database);
const { token } = JSON.parse(await cli(["service-token", "create", "--name", "soak", "--json"], database));
const env = {
  ...database,
  LATCHKEY_REDIS_URL: redis.url,
  LATCHKEY_REDIS_PREFIX: `lk-soak-${randomUUID()}`,
  // Exact limits even while Redis is away: limited requests are refused (503) rather than counted per node.
  LATCHKEY_LIMITER_OUTAGE: "refuse",
};
const nodes = await Promise.all([1, 2, 3].map((index) => nodeProcess(env, index)));
say(`three nodes up: ${nodes.map((node) => node.baseUrl).join(" ")}`);

const basic = (key) => `Basic ${Buffer.from(`${key.api_id}:${key.api_key}`).toString("base64")}`;
const load = startSoakLoad({
  nodes,
  rate,
  serviceToken: token,
  limited: { authorization: basic(limited.key), group: "api-key:read" },
  writer: { authorization: basic(writer.key) },
});

// The run's time counts from here: the setup above (initdb, three nodes) is not part of it.
const startedAt = Date.now();
const FAULTS = [
  {
    name: "PostgreSQL backends terminated",
    run: async () => `${await postgres.terminateBackends()} backends`,
  },
  {
    name: "Redis stalled",
    run: async () => {
      redis.pause();
      await new Promise((resolve) => setTimeout(resolve, stallMs));
      redis.resume();
      return `${stallMs} ms`;
    },
  },
  { name: "PostgreSQL restarted", run: async () => (await postgres.restart(), "pg_ctl restart -m fast") },
  { name: "Redis restarted", run: async () => (await redis.restart(), "SIGTERM, started from its AOF") },
  {
    name: "node SIGKILLed and restarted",
    run: async (turn) => {
      const node = nodes[turn % nodes.length];
      await node.kill();
      await node.start();
      return `node ${node.index}`;
    },
  },
];
const faultsRun = [];
let faultTurn = 0;
const endsAt = startedAt + minutes * 60_000;
while (Date.now() + faultEverySeconds * 1000 < endsAt) {
  await new Promise((resolve) => setTimeout(resolve, faultEverySeconds * 1000));
  const fault = FAULTS[faultTurn % FAULTS.length];
  const at = Date.now();
  const detail = await fault.run(Math.floor(faultTurn / FAULTS.length));
  faultsRun.push({ name: fault.name, detail, seconds: (Date.now() - at) / 1000 });
  say(`fault ${faultTurn + 1}: ${fault.name} (${detail}); ${load.progress()}`);
  faultTurn++;
}
await new Promise((resolve) => setTimeout(resolve, Math.max(0, endsAt - Date.now())));
const result = await load.finish(quota);
for (const node of nodes) await node.stop();
await Promise.all([postgres.destroy(), redis.destroy()]);

const heapOk = result.heap.every((sample) => sample.ratio === null || sample.ratio <= heapGrowth);
const verdicts = [
  ["over-admissions", result.overAdmissions, result.overAdmissions === 0],
  ["acknowledged writes lost", result.writesLost, result.writesLost === 0],
  ["5xx other than the documented 503s", result.undocumented5xx, result.undocumented5xx === 0],
  ["heap flat (second half / first half <= " + heapGrowth + ")", heapOk ? "yes" : "NO", heapOk],
];
const lines = [
  `soak: ${minutes} min, ${rate} requests/s over 3 nodes, ${faultsRun.length} faults; load average at the end ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
  "",
  "| promise | seen | held |",
  "| --- | ---: | --- |",
  ...verdicts.map(([name, seen, held]) => `| ${name} | ${seen} | ${held ? "yes" : "**NO**"} |`),
  "",
  `requests: ${JSON.stringify(result.counts)}; answers by kind and status ${JSON.stringify(result.statuses)}`,
  `authorize admissions ${result.admissions} (quota ${quota} per 60 s), decisions by status ${JSON.stringify(result.decisions)}`,
  `keys created and acknowledged ${result.writesAcknowledged}, found at the end ${result.writesFound}`,
  `examples (undocumented 5xx, refused creates): ${JSON.stringify(result.examples)}`,
  `heap (MB, first half median -> second half median, per node process): ${result.heap
    .map((s) => `${s.node}: ${s.first ?? "-"} -> ${s.second ?? "-"}`)
    .join("; ")}`,
  `faults: ${faultsRun.map((fault) => `${fault.name} (${fault.detail}, ${fault.seconds.toFixed(1)} s)`).join("; ")}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(verdicts.every(([, , held]) => held) ? 0 : 1);
