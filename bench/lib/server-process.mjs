// Starts a bench server in its own process (so it never shares an event loop with the load generator),
// waits for its ready line, and reads its CPU time from /proc.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on

/**
 * Spawns `node [nodeArgs] script` and resolves once it prints `{"ready": true, "port", "targets"}`.
 * The returned handle's `stop()` sends SIGTERM and waits, so a --cpu-prof profile gets written.
 */
export async function startServer(script, { nodeArgs = [], env = {} } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} not ready within 120 s`)), START_TIMEOUT_MS);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.on("line", (line) => {
      if (!line.startsWith("{")) return process.stderr.write(`${line}\n`);
      const message = JSON.parse(line);
      if (message.ready) {
        clearTimeout(timer);
        resolve(message);
      }
    });
  });
  return {
    pid: child.pid,
    port: ready.port,
    targets: ready.targets,
    /** The whole ready line, with whatever else the server reported. */
    ready,
    /** User + system CPU seconds the process has used so far, or null off Linux. */
    cpuSeconds: () => readCpuSeconds(child.pid),
    /** The user-space part of it: JavaScript, V8 and Node; the rest is the kernel's (system calls). */
    cpuUserSeconds: () => readCpuSeconds(child.pid, "user"),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
    kill: () => child.kill("SIGKILL"),
  };
}

/**
 * CPU seconds process `pid` has used, from /proc: user + system, or with `part` "user" the user-space
 * part alone; null when it cannot be read.
 */
export function readCpuSeconds(pid, part = "both") {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    const ticks = part === "user" ? user : user + system;
    return ticks / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
