import { Gauge, type Registry } from "prom-client";
import type { RedisTopologyHealth } from "../redis/topology-health.js";

/**
 * Redis' topology and its degradations, read at scrape time from the topology monitor
 * (src/redis/topology-health.ts): which topology, whether it is degraded, how many masters are down
 * or have no replica online, and whether a failover is in progress.
 */
export function registerRedisTopologyGauges(registers: Registry[], health: () => RedisTopologyHealth): void {
  new Gauge({
    name: "latchkey_redis_topology",
    help: "Always 1; the topology label names Redis' topology (single, cluster, sentinel).",
    labelNames: ["topology"],
    registers,
    collect() {
      this.set({ topology: health().topology }, 1);
    },
  });
  const gauges: [string, string, (h: RedisTopologyHealth) => number][] = [
    [
      "latchkey_redis_degraded",
      "1 while Redis' topology is degraded (a master down, a failover, a master without replica).",
      (h) => (h.state === "degraded" ? 1 : 0),
    ],
    [
      "latchkey_redis_masters_down",
      "Masters serving slots that are down or unreachable now.",
      (h) => h.mastersDown,
    ],
    [
      "latchkey_redis_masters_without_replica",
      "Masters with no replica online (none can acknowledge a slot or take over).",
      (h) => h.mastersWithoutReplica,
    ],
    [
      "latchkey_redis_failover_in_progress",
      "1 while a master is down and its slots wait for a promoted replica.",
      (h) => (h.failoverInProgress ? 1 : 0),
    ],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(health()));
      },
    });
  }
}
