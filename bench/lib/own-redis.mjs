// A redis-server of a bench script's own, on a free port, with its data in an append-only file
// (fsync always) so that a restart keeps the sliding logs: what a restarted production Redis with
// persistence does. It can be stalled (SIGSTOP, then SIGCONT) and restarted (SIGTERM, then started again).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.mjs";

export async function startOwnRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "latchkey-soak-redis-"));
  let child;
  const launch = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes"],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 15_000;
    while (!output.includes("Ready to accept connections")) {
      if (child.exitCode !== null) throw new Error(`redis-server exited: ${output.slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not start: ${output.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await launch();
  const stop = async (signal) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGCONT");
    child.kill(signal);
    await exited;
  };
  process.once("exit", () => child.kill("SIGKILL"));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    /** A clean restart: Redis writes its append-only file and starts again from it. */
    async restart() {
      await stop("SIGTERM");
      await launch();
    },
    async destroy() {
      await stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
