// A redis-server of one bench run's own, without persistence, so that its command statistics
// (INFO commandstats) are that run's only. Used by scale-out.mjs, stacked-windows.mjs and script-window-cost.mjs.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A redis-server of this run's own, so its command statistics are this benchmark's only. */
export async function privateRedis() {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) resolve(undefined);
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  // Keep reading its log, so that a full pipe never blocks it.
  child.stdout.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill("SIGKILL") };
}
