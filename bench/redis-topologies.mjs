// Redis Cluster capacity and failover, measured (docs/several-nodes.md, "Sizing"):
//   shards    the Redis limiter alone against clusters of 1, 2 and 3 masters (one replica each),
//             with and without replica acknowledgement: decisions per second from one client process,
//             and the Redis CPU each decision costs its master (and its replica), from INFO cpu;
//   node      one latchkey node (dist/) on a 3-master cluster, POST /v1/authorize under autocannon,
//             with and without acknowledgement: decisions per second and the node's CPU per decision;
//   failover  three nodes on one SQLite file and a 3-master cluster; load on one organization, the
//             master of its slot SIGKILLed and started again; admissions counted by the clients
//             against the slots the promoted master holds: `lost` slots are what a failover can
//             admit twice (the over-admission bound), per run, with and without acknowledgement.
//   npm run build && node bench/redis-topologies.mjs [--part shards|node|failover|all] [--seconds 5] [--runs 5]
// CI runs none of this (the suites test/multinode/redis-*.test.ts hold the behaviour); record `uptime`.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import autocannon from "autocannon";
import calculateSlot from "cluster-key-slot";
import { freePort } from "./lib/free-port.mjs";
import { redisCpuSeconds, startCluster } from "./lib/redis-topology.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.BENCH_DIST ?? join(here, "..", "dist"));
if (!existsSync(join(dist, "main.js")))
  throw new Error(`${dist}/main.js is missing: run \`npm run build\` first.`);
const { values } = parseArgs({
  options: {
    part: { type: "string", default: "all" },
    seconds: { type: "string", default: "5" },
    runs: { type: "string", default: "5" },
  },
});
const seconds = Number(values.seconds);
const runs = Number(values.runs);
const parts = values.part === "all" ? ["shards", "node", "failover"] : [values.part];
const load = (module) => import(pathToFileURL(join(dist, module)).href);
const log = (line) => process.stderr.write(`[redis-topologies] ${line}\n`);
const loadPerCore = () => Number((loadavg()[0] / availableParallelism()).toFixed(2));
const round = (n, digits = 0) => Number(n.toFixed(digits));
const results = { machine: { cores: availableParallelism(), loadPerCoreAtStart: loadPerCore() } };

/** The Redis limiter of dist/, alone, against `cluster`: `callers` decisions in flight for `seconds`. */
async function measureShards(masters, replicasAck) {
  const { openRedis, waitUntilReady } = await load("redis/connection.js");
  const { createRedisRateLimiter } = await load("ratelimit/redis-rate-limiter.js");
  const cluster = await startCluster({ masters, replicas: 1 });
  try {
    const redis = openRedis(cluster.url);
    if (!(await waitUntilReady(redis, 10_000))) throw new Error("the cluster does not answer");
    const limiter = createRedisRateLimiter(redis, { tolerateFailover: true, replicasAck });
    // 3,000 organizations' tags: every master gets its share of the slots in use.
    const bucket = (i) => `lk-bench:{org_${i % 3000}}:rl:api-key:read`;
    const decide = async (stopAt, counts) => {
      for (let i = Math.floor(Math.random() * 3000); performance.now() < stopAt; i++) {
        if ((await limiter.consume(bucket(i), 1e9, 1000)).type !== "allow") throw new Error("denied");
        counts.decisions++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, () => decide(performance.now() + 1000, { decisions: 0 })));
    const shards = await cluster.shards();
    const cpu = async (ports) => (await Promise.all(ports.map(redisCpuSeconds))).reduce((a, b) => a + b, 0);
    const masterPorts = shards.map((s) => s.masterPort);
    const replicaPorts = shards.flatMap((s) => s.replicaPorts);
    const [masterBefore, replicaBefore, clientBefore] = [
      await cpu(masterPorts),
      await cpu(replicaPorts),
      process.cpuUsage(),
    ];
    const counts = { decisions: 0 };
    const started = performance.now();
    await Promise.all(Array.from({ length: 64 }, () => decide(started + seconds * 1000, counts)));
    const elapsed = (performance.now() - started) / 1000;
    const masterCpu = (await cpu(masterPorts)) - masterBefore;
    const replicaCpu = (await cpu(replicaPorts)) - replicaBefore;
    const client = process.cpuUsage(clientBefore);
    await limiter.close();
    return {
      masters,
      replicasAck,
      decisionsPerSecond: round(counts.decisions / elapsed),
      masterCpuUsPerDecision: round((masterCpu * 1e6) / counts.decisions, 1),
      replicaCpuUsPerDecision: round((replicaCpu * 1e6) / counts.decisions, 1),
      clientCpuUsPerDecision: round((client.user + client.system) / counts.decisions, 1),
      loadPerCore: loadPerCore(),
    };
  } finally {
    await cluster.stop();
  }
}

/** Starts `node dist/main.js` with `env` and resolves once it listens. */
async function startNode(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(dist, "main.js")], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      LATCHKEY_LOG_LEVEL: "info",
      LATCHKEY_ACCESS_LOG: "off",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise((done, fail) => {
    const collect = (chunk) => {
      output += chunk;
      if (output.includes("Server listening")) done();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => fail(new Error(`the node exited with ${code}:\n${output}`)));
  });
  return { child, port, url: `http://127.0.0.1:${port}`, cpuSeconds: () => processCpuSeconds(child.pid) };
}

/** utime + stime of a process, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second). */
function processCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A fresh SQLite deployment with organizations whose read group never runs out, and a service token. */
async function deployment(dir, redisUrl, organizations) {
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(dir, `latchkey-${Date.now()}.db`)}`,
    LATCHKEY_DATABASE_CREATE: "on",
    LATCHKEY_REDIS_URL: redisUrl,
    LATCHKEY_REDIS_PREFIX: `lk-bench-${Date.now()}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  const cli = async (args) =>
    (
      await promisify(execFile)(process.execPath, [join(dist, "cli/bin.js"), ...args], {
        env: { ...process.env, ...env },
      })
    ).stdout;
  const orgs = [];
  for (let i = 0; i < organizations; i++) {
    const created = JSON.parse(await cli(["org", "create", "--name", `bench-${i}`, "--json"]));
    await cli([
      "org",
      "limits",
      "--org",
      created.organization.id,
      "--group",
      "api-key:read",
      "--quota",
      "100000000",
    ]);
    orgs.push({
      id: created.organization.id,
      authorization: `Basic ${Buffer.from(`${created.key.api_id}:${created.key.api_key}`).toString("base64")}`,
    });
  }
  const token = JSON.parse(await cli(["service-token", "create", "--name", "bench", "--json"])).token;
  return { env, orgs, token };
}

const decisionBody = (org) =>
  JSON.stringify({ authorization: org.authorization, permission: "api_keys:read", group: "api-key:read" });

/** One node on a 3-master cluster under autocannon: decisions per second and node CPU per decision. */
async function measureNode(dir, replicasAck) {
  const cluster = await startCluster({ masters: 3, replicas: 1 });
  try {
    const { env, orgs, token } = await deployment(dir, cluster.url, 12);
    const node = await startNode({ ...env, LATCHKEY_REDIS_REPLICAS_ACK: replicasAck ? "1" : "0" });
    try {
      const headers = { "content-type": "application/json", "x-latchkey-service-token": token };
      const requests = orgs.map((org) => ({
        method: "POST",
        path: "/v1/authorize",
        headers,
        body: decisionBody(org),
      }));
      const cannon = (duration) =>
        new Promise((done, fail) =>
          autocannon({ url: node.url, connections: 32, duration, requests }, (error, result) =>
            error ? fail(error) : done(result),
          ),
        );
      await cannon(2);
      const cpuBefore = node.cpuSeconds();
      const result = await cannon(seconds);
      const cpu = node.cpuSeconds() - cpuBefore;
      if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 200`);
      return {
        replicasAck,
        decisionsPerSecond: round(result.requests.average),
        nodeCpuUsPerDecision: round((cpu * 1e6) / result.requests.total, 1),
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        loadPerCore: loadPerCore(),
      };
    } finally {
      node.child.kill("SIGKILL");
    }
  } finally {
    await cluster.stop();
  }
}

/** One failover: load on one organization, its master SIGKILLed and restarted, slots counted. */
async function failoverRun(cluster, nodes, deploymentInfo, org, replicasAck) {
  const { openRedis, waitUntilReady } = await load("redis/connection.js");
  const { organizationKeys } = await load("redis/key-names.js");
  const key = organizationKeys(deploymentInfo.env.LATCHKEY_REDIS_PREFIX, org.id).bucket("api-key:read");
  const master = await cluster.masterOfSlot(calculateSlot(key));
  const headers = { "content-type": "application/json", "x-latchkey-service-token": deploymentInfo.token };
  const replies = [];
  let stop = false;
  let killedAt = Infinity;
  const clients = Array.from({ length: 12 }, async (_, c) => {
    for (let i = 0; !stop && i < 200_000; i++) {
      const node = nodes[(c + i) % nodes.length];
      const sent = performance.now();
      const response = await fetch(`${node.url}/v1/authorize`, {
        method: "POST",
        headers,
        body: decisionBody(org),
      });
      const body = await response.json();
      replies.push({
        sent,
        ms: performance.now() - sent,
        status: response.status,
        allowed: body.allowed === true,
        code: body.error?.code,
      });
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  killedAt = performance.now();
  await master.kill();
  // Started again only once its replica has taken over: a master without persistence that came back
  // before that would rejoin as the master, empty, and its replica would copy the emptiness
  // (docs/several-nodes.md says to persist, or to restart that late).
  for (
    const giveUp = Date.now() + 60_000;
    (await cluster.masterOfSlot(calculateSlot(key)))?.port === master.port;
  ) {
    if (Date.now() > giveUp) throw new Error("no replica was promoted within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  const promotedAt = performance.now();
  await master.start();
  await cluster.settled(1, 120_000);
  const healedAt = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  stop = true;
  await Promise.all(clients);
  const redis = openRedis(cluster.url);
  await waitUntilReady(redis, 10_000);
  const held = await redis.zcard(key);
  redis.disconnect();
  const admitted = replies.filter((r) => r.allowed).length;
  const firstAfter = replies
    .filter((r) => r.sent > killedAt && r.allowed)
    .sort((a, b) => a.sent + a.ms - (b.sent + b.ms))[0];
  return {
    replicasAck,
    admitted,
    held,
    lost: admitted - held,
    refused503: replies.filter((r) => r.code === "rate_limiter_unavailable").length,
    decisionsPerSecond: round(replies.length / ((performance.now() - killedAt + 1000) / 1000)),
    serviceBackMsAfterKill: firstAfter ? round(firstAfter.sent + firstAfter.ms - killedAt) : null,
    promotedMsAfterKill: round(promotedAt - killedAt),
    healedMsAfterKill: round(healedAt - killedAt),
    slowestMs: round(Math.max(...replies.map((r) => r.ms))),
    loadPerCore: loadPerCore(),
  };
}

async function measureFailovers(dir, replicasAck) {
  const cluster = await startCluster({ masters: 3, replicas: 1 });
  const nodes = [];
  try {
    const info = await deployment(dir, cluster.url, runs);
    const env = {
      ...info.env,
      LATCHKEY_REDIS_REPLICAS_ACK: replicasAck ? "1" : "0",
      LATCHKEY_REDIS_DEADLINE_MS: "8000",
      LATCHKEY_REDIS_OUTAGE_AFTER_MS: "10000",
      LATCHKEY_LIMITER_OUTAGE: "refuse",
    };
    for (let i = 0; i < 3; i++) nodes.push(await startNode(env));
    const measured = [];
    for (const org of info.orgs) {
      measured.push(await failoverRun(cluster, nodes, info, org, replicasAck));
      log(JSON.stringify(measured.at(-1)));
    }
    return measured;
  } finally {
    for (const node of nodes) node.child.kill("SIGKILL");
    await cluster.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), "latchkey-bench-topologies-"));
try {
  if (parts.includes("shards")) {
    results.shards = [];
    for (const masters of [1, 2, 3])
      for (const ack of [false, true]) {
        results.shards.push(await measureShards(masters, ack));
        log(JSON.stringify(results.shards.at(-1)));
      }
  }
  if (parts.includes("node")) {
    results.node = [await measureNode(dir, false), await measureNode(dir, true)];
    log(JSON.stringify(results.node));
  }
  if (parts.includes("failover")) {
    results.failover = [...(await measureFailovers(dir, false)), ...(await measureFailovers(dir, true))];
  }
  results.machine.loadPerCoreAtEnd = loadPerCore();
  for (const part of ["shards", "node", "failover"]) if (results[part]) console.table(results[part]);
  console.log(JSON.stringify(results));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
