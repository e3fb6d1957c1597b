import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { freePort } from "./free-port.js";
import { askRedis, startThrowawayRedis, type ThrowawayRedis } from "./redis-server.js";
import { scaledMs } from "./start-deadline.js";

/** The master name the sentinels monitor. */
export const MASTER_NAME = "latchkey-test";

/** A master, its replica and three sentinels of the test's own. */
export interface ThrowawaySentinels {
  /** redis+sentinel://127.0.0.1:<port>,.../latchkey-test */
  url: string;
  /** The two data servers (which one is the master changes with a failover). */
  servers: [ThrowawayRedis, ThrowawayRedis];
  sentinels: ThrowawayRedis[];
  /** The server the sentinels name as master now. */
  master(): Promise<ThrowawayRedis>;
  /** Waits until the sentinels agree on a live master that has `replicasOnline` replicas in sync (1 by default). */
  settled(replicasOnline?: number): Promise<void>;
  /**
   * Asks a sentinel to fail over now (`SENTINEL FAILOVER`) once it sees `replica` as a replica it
   * reaches: "OK", or the error it answered ("NOGOODSLAVE ...": no replica it may promote).
   */
  forceFailover(replica: ThrowawayRedis): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts a master, a replica of it and three sentinels (quorum 2) that take over after `downAfterMs`
 * of silence, each sentinel with a configuration file of its own (sentinels rewrite theirs), and waits
 * until the sentinels know each other and the replica is in sync.
 */
export async function startThrowawaySentinels(
  redisServer: string,
  options: { downAfterMs?: number } = {},
): Promise<ThrowawaySentinels> {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-sentinel-"));
  const primary = await startThrowawayRedis(redisServer);
  const replica = await startThrowawayRedis(redisServer, undefined, {
    args: ["--replicaof", "127.0.0.1", String(primary.port)],
  });
  const servers: [ThrowawayRedis, ThrowawayRedis] = [primary, replica];
  const sentinelPorts = await Promise.all([1, 2, 3].map(() => freePort()));
  const sentinels = await Promise.all(
    sentinelPorts.map((port) => {
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
          // Long enough that a busy machine does not make the sentinels fail over by themselves.
          `sentinel down-after-milliseconds ${MASTER_NAME} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${MASTER_NAME} 2000`,
          "",
        ].join("\n"),
      );
      return startThrowawayRedis(redisServer, port, {
        leadingArgs: [file, "--sentinel"],
        readyLine: "+monitor master",
        dir,
      });
    }),
  );
  const live = () => sentinels.filter((s) => s.running());
  const masterPort = async () => {
    const address = (await askRedis((live()[0] as ThrowawayRedis).port, (redis) =>
      redis.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME),
    )) as [string, string];
    return Number(address[1]);
  };
  const set: ThrowawaySentinels = {
    url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${MASTER_NAME}`,
    servers,
    sentinels,
    async master() {
      const port = await masterPort();
      const server = servers.find((s) => s.port === port);
      if (!server) throw new Error(`the sentinels name an unknown master on port ${port}`);
      return server;
    },
    async settled(replicasOnline = 1) {
      await vi.waitFor(
        async () => {
          const ports = await Promise.all(
            live().map((s) =>
              askRedis(s.port, async (redis) => {
                const fields = (await redis.call("SENTINEL", "MASTER", MASTER_NAME)) as string[];
                const others = Number(fields[fields.indexOf("num-other-sentinels") + 1]);
                if (others < 2) throw new Error(`sentinel ${s.port} knows ${others} other sentinels`);
                return Number(fields[fields.indexOf("port") + 1]);
              }),
            ),
          );
          if (new Set(ports).size !== 1)
            throw new Error(`the sentinels disagree on the master: ${ports.join(", ")}`);
          const info = await askRedis(ports[0] as number, (redis) => redis.info("replication"));
          if (!info.includes("role:master")) throw new Error(`${ports[0]} is not a master yet`);
          const online = (info.match(/^slave\d+:.*state=online/gm) ?? []).length;
          if (online < replicasOnline) throw new Error(`the master has ${online} replicas in sync`);
        },
        { timeout: scaledMs(30_000), interval: 100 },
      );
    },
    async forceFailover(replica) {
      const sentinel = (live()[0] as ThrowawayRedis).port;
      await vi.waitFor(
        async () => {
          const replicas = (await askRedis(sentinel, (redis) =>
            redis.call("SENTINEL", "REPLICAS", MASTER_NAME),
          )) as string[][];
          const field = (fields: string[], name: string) => fields[fields.indexOf(name) + 1];
          const seen = replicas.find((fields) => Number(field(fields, "port")) === replica.port);
          // Reached, and its INFO read (so its priority is known): "info-refresh" is the age of that
          // reading, counted from 1970 (an epoch's worth of milliseconds) while there has been none.
          const flags = seen && field(seen, "flags");
          if (!seen || flags !== "slave" || Number(field(seen, "info-refresh")) > 60_000)
            throw new Error(
              `sentinel ${sentinel} does not see ${replica.port} as a reachable replica (${flags})`,
            );
        },
        { timeout: scaledMs(30_000), interval: 100 },
      );
      return askRedis(sentinel, (redis) => redis.call("SENTINEL", "FAILOVER", MASTER_NAME)).then(
        String,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    },
    async stop() {
      await Promise.all([...sentinels, ...servers].map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await set.settled();
  return set;
}
