// Runs the machine's `caddy` for a benchmark: a Caddyfile with its {$NAME} variables from `env`, the
// admin endpoint off, its state in a temporary directory; a handle like server-process.mjs's.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.mjs";
import { readCpuSeconds } from "./server-process.mjs";

const START_TIMEOUT_MS = 20_000;

/** Starts `caddy run` on a free port of 127.0.0.1 and resolves once the site answers. */
export async function startCaddy(caddyfile, env = {}) {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), "latchkey-bench-caddy-"));
  const child = spawn(
    process.env.BENCH_CADDY ?? "caddy",
    ["run", "--config", caddyfile, "--adapter", "caddyfile"],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        PATH: process.env.PATH,
        HOME: state,
        XDG_DATA_HOME: join(state, "data"),
        XDG_CONFIG_HOME: join(state, "config"),
        CADDY_ADMIN: "off",
        SITE_ADDRESS: `http://127.0.0.1:${port}`,
        ...env,
      },
    },
  );
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited with ${child.exitCode}:\n${log}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`caddy did not start:\n${log}`);
    }
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    pid: child.pid,
    port,
    cpuSeconds: () => readCpuSeconds(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(state, { recursive: true, force: true });
    },
    kill: () => child.kill("SIGKILL"),
  };
}
