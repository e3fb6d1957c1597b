import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { waitUntilStarted } from "./start-deadline.js";
import { freePort } from "./free-port.js";
import { killOnExit } from "./kill-on-exit.js";

/** A redis-server of the test's own, which it may stop, pause and restart (never the shared one). */
export interface ThrowawayRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  /** The port it listens on, the same after a restart. */
  port: number;
  /** Kills the server (as a crash would); the port stays reserved for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (no persistence). */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
}

async function launch(program: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    program,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  killOnExit(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  try {
    await waitUntilStarted({
      what: "redis-server",
      ready: () => output.includes("Ready to accept connections"),
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

/** Starts redis-server on a free port (or `port`); call `stop` when done (an exit hook also kills it). */
export async function startThrowawayRedis(program: string, port?: number): Promise<ThrowawayRedis> {
  const chosen = port ?? (await freePort());
  let child: ChildProcess | undefined = await launch(program, chosen);
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      running.kill("SIGCONT");
      running.kill("SIGKILL");
      await once(running, "exit");
    },
    async start() {
      if (child) throw new Error("already running");
      child = await launch(program, chosen);
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
  };
}
