// Throwaway Redis topologies for benchmarks (the tests have their own, test/helpers/redis-cluster.ts):
// a cluster of `masters` masters with `replicas` replicas each, made with redis-cli --cluster create.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "./free-port.mjs";

const run = promisify(execFile);

/** Starts one redis-server (cluster node) and resolves once it serves; `restart` starts it again. */
async function startNode(port, dir, nodeTimeoutMs) {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    `nodes-${port}.conf`,
    "--dbfilename",
    `dump-${port}.rdb`,
    "--cluster-node-timeout",
    String(nodeTimeoutMs),
    "--cluster-announce-ip",
    "127.0.0.1",
    "--cluster-require-full-coverage",
    "no",
  ];
  const node = { port, child: undefined };
  node.start = async () => {
    const child = spawn("redis-server", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    await new Promise((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`redis-server ${port} exited (${code}):\n${output}`)));
    });
    node.child = child;
  };
  node.kill = async () => {
    const child = node.child;
    node.child = undefined;
    if (!child || child.exitCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  };
  await node.start();
  return node;
}

/** Asks one node, over a connection of its own. */
export async function ask(port, work) {
  const redis = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  await redis.connect();
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/** CPU seconds (user + system) a redis-server has used, from its INFO. */
export async function redisCpuSeconds(port) {
  const info = await ask(port, (redis) => redis.info("cpu"));
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/** The masters serving slots now, and each one's replicas online, from CLUSTER SHARDS. */
export async function clusterShards(port) {
  const reply = await ask(port, (redis) => redis.call("CLUSTER", "SHARDS"));
  const fields = (flat) =>
    Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]));
  return reply
    .map(fields)
    .filter((shard) => shard.slots.length > 0)
    .map((shard) => {
      const nodes = shard.nodes.map(fields);
      const master = nodes.find((n) => n.role === "master");
      return {
        masterPort: Number(master?.port),
        masterUp: master?.health === "online",
        replicasOnline: nodes.filter((n) => n.role === "replica" && n.health === "online").length,
        replicaPorts: nodes.filter((n) => n.role === "replica").map((n) => Number(n.port)),
        slots: shard.slots.map(Number),
      };
    });
}

/**
 * What redis-cli --cluster create does, for fewer than the three masters it insists on: slots split
 * between the masters, every node introduced to the first, each replica attached to its master.
 */
async function joinByHand(ports, masters, replicas) {
  const per = Math.ceil(16384 / masters);
  for (let m = 0; m < masters; m++) {
    const from = m * per;
    const to = Math.min(16383, from + per - 1);
    await ask(ports[m], (redis) => redis.call("CLUSTER", "ADDSLOTSRANGE", String(from), String(to)));
  }
  for (const port of ports.slice(1))
    await ask(port, (redis) => redis.call("CLUSTER", "MEET", "127.0.0.1", String(ports[0])));
  const ids = await Promise.all(ports.map((port) => ask(port, (redis) => redis.call("CLUSTER", "MYID"))));
  for (;;) {
    const known = await ask(ports[0], (redis) => redis.call("CLUSTER", "NODES"));
    if (String(known).trim().split("\n").length === ports.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (let r = 0; r < masters * replicas; r++) {
    const port = ports[masters + r];
    const master = ids[r % masters];
    for (;;) {
      try {
        await ask(port, (redis) => redis.call("CLUSTER", "REPLICATE", master));
        break;
      } catch {
        // the replica has not heard of its master yet
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

/** Starts a cluster and waits until every master has `replicas` replicas in sync. */
export async function startCluster({ masters, replicas = 1, nodeTimeoutMs = 1000 }) {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-bench-cluster-"));
  const ports = await Promise.all(Array.from({ length: masters * (1 + replicas) }, () => freePort()));
  const nodes = await Promise.all(ports.map((port) => startNode(port, dir, nodeTimeoutMs)));
  if (masters >= 3) {
    await run("redis-cli", [
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    ]);
  } else {
    await joinByHand(ports, masters, replicas);
  }
  const cluster = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(",")}`,
    nodes,
    live: () => nodes.filter((n) => n.child),
    shards: () => clusterShards(cluster.live()[0].port),
    async settled(replicasOnline = replicas, timeoutMs = 60_000) {
      const giveUp = Date.now() + timeoutMs;
      for (;;) {
        try {
          const shards = await cluster.shards();
          const states = await Promise.all(
            cluster.live().map((n) => ask(n.port, (r) => r.call("CLUSTER", "INFO"))),
          );
          // Each master's own count of replicas in sync: the gossip calls a replica online before that.
          const inSync = await Promise.all(
            shards.map((s) =>
              ask(
                s.masterPort,
                async (r) => ((await r.info("replication")).match(/^slave\d+:.*state=online/gm) ?? []).length,
              ),
            ),
          );
          if (
            shards.length === masters &&
            shards.every((s, i) => s.masterUp && inSync[i] >= replicasOnline) &&
            states.every((s) => String(s).includes("cluster_state:ok"))
          )
            return;
        } catch {
          // a node is still starting
        }
        if (Date.now() > giveUp) throw new Error("the cluster did not settle");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async masterOfSlot(slot) {
      const shard = (await cluster.shards()).find((s) => {
        for (let i = 0; i < s.slots.length; i += 2)
          if (slot >= s.slots[i] && slot <= s.slots[i + 1]) return true;
        return false;
      });
      return nodes.find((n) => n.port === shard?.masterPort);
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.settled();
  return cluster;
}
