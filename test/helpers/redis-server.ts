import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { waitUntilStarted } from "./start-deadline.js";
import { freePort } from "./free-port.js";
import { killOnExit } from "./kill-on-exit.js";
import { Redis } from "ioredis";

/** A redis-server of the test's own, which it may stop, pause and restart (never the shared one). */
export interface ThrowawayRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  /** The port it listens on, the same after a restart. */
  port: number;
  /** What the server printed (its log), across restarts. */
  output(): string;
  /** Whether the server runs now (not stopped). */
  running(): boolean;
  /** Kills the server (as a crash would); the port stays reserved for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence), with `extraArgs` after its own. */
  start(extraArgs?: string[]): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
}

/**
 * How a redis-server of a test's own is started: its port, and the settings that make it a cluster
 * node, a replica or a sentinel (redis-cluster.ts, redis-sentinel.ts). The port stays the same across
 * restarts; a node that keeps state on disk (a cluster's nodes.conf, a sentinel's configuration)
 * keeps it in `dir`.
 */
export interface RedisLaunch {
  /** Arguments after the port and address: `--cluster-enabled yes`, `--replicaof`, a config file... */
  args?: string[];
  /** Working directory (where a cluster node keeps nodes.conf). */
  dir?: string;
  /** What the server prints once it serves; "Ready to accept connections" by default. */
  readyLine?: string;
  /** Arguments before the port, such as a sentinel's configuration file. */
  leadingArgs?: string[];
}

async function launch(
  program: string,
  port: number,
  how: RedisLaunch = {},
  log: (text: string) => void = () => {},
): Promise<ChildProcess> {
  const child = spawn(
    program,
    [
      ...(how.leadingArgs ?? []),
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      ...(how.args ?? []),
    ],
    { stdio: ["ignore", "pipe", "pipe"], ...(how.dir ? { cwd: how.dir } : {}) },
  );
  killOnExit(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    log(chunk.toString());
  });
  const readyLine = how.readyLine ?? "Ready to accept connections";
  try {
    await waitUntilStarted({
      what: "redis-server",
      ready: () => output.includes(readyLine),
      failed: () =>
        child.exitCode === null && child.signalCode === null
          ? undefined
          : `exited (${child.exitCode ?? child.signalCode})`,
      output: () => output,
      baseMs: 10_000,
      intervalMs: 20,
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return child;
}

/**
 * Starts redis-server on a free port (or `port`), set up by `how`; call `stop` when done (an exit hook
 * also kills it).
 */
export async function startThrowawayRedis(
  program: string,
  port?: number,
  how: RedisLaunch = {},
): Promise<ThrowawayRedis> {
  const chosen = port ?? (await freePort());
  // A folder of its own: a replica's full sync writes dump.rdb to the working folder, and a restart
  // would load it (a stale copy of another test's data) instead of starting empty.
  const dir = how.dir ?? mkdtempSync(join(tmpdir(), "latchkey-redis-"));
  how = { ...how, dir };
  let printed = "";
  const log = (text: string) => {
    printed += text;
  };
  let child: ChildProcess | undefined = await launch(program, chosen, how, log);
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    output: () => printed,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      running.kill("SIGCONT");
      running.kill("SIGKILL");
      await once(running, "exit");
    },
    async start(extraArgs = []) {
      if (child) throw new Error("already running");
      child = await launch(program, chosen, { ...how, args: [...(how.args ?? []), ...extraArgs] }, log);
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
  };
}

/** Runs `work` over one plain connection to the redis-server on `port` (no retries), then closes it. */
export async function askRedis<T>(port: number, work: (redis: Redis) => Promise<T>): Promise<T> {
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
