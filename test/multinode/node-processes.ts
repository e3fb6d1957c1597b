import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { afterEach } from "vitest";
import { MAIN } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { waitUntilStarted } from "../helpers/start-deadline.js";
import { killOnExit } from "../helpers/kill-on-exit.js";
import { listensOn } from "../helpers/listens-on.js";

/** One `node dist/main.js` server process, as an operator would run it behind a load balancer. */
export interface NodeProcess {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** Everything the node wrote: its warn-level JSON log (stdout) and first-start notice (stderr). */
  output(): string;
  /** The exit code or signal once the process has ended; null while it runs. */
  exited(): number | NodeJS.Signals | null;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
}

/** The parent's environment without any LATCHKEY_ setting, so that only `env` configures the node. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LATCHKEY_")));
}

function waitForHealth(
  baseUrl: string,
  port: number,
  child: ChildProcess,
  output: () => string,
  baseMs: number,
): Promise<void> {
  return waitUntilStarted({
    what: "the node",
    ready: async () => (await fetch(`${baseUrl}/healthz`)).ok && listensOn(child.pid, port),
    failed: () => (child.exitCode === null ? undefined : `exited early (${child.exitCode})`),
    output,
    baseMs,
  });
}

/**
 * Starts one node on a free port with `env` and resolves once /healthz answers, within
 * `startTimeoutMs` (20 s by default; more where the suite itself loads the machine).
 */
export async function startNode(
  env: Record<string, string>,
  startTimeoutMs = 20_000,
  attempts = 3,
): Promise<NodeProcess> {
  if (!existsSync(MAIN)) throw new Error("dist/ is missing: run `npm run build` first (`npm test` does).");
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...cleanEnvironment(),
      PORT: String(port),
      HOST: "127.0.0.1",
      LATCHKEY_LOG_LEVEL: "warn",
      // The first credentials of an empty database, on standard error, where the suites read them.
      LATCHKEY_BOOTSTRAP: "print",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const baseUrl = `http://127.0.0.1:${port}`;
  const node: NodeProcess = {
    baseUrl,
    output: () => output,
    exited: () => child.exitCode ?? child.signalCode,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await waitForHealth(baseUrl, port, child, node.output, startTimeoutMs);
  } catch (error) {
    child.kill("SIGKILL");
    // The free port was taken by another suite's process before this one bound it: another port.
    if (attempts > 1 && /already in use/.test(node.output()))
      return startNode(env, startTimeoutMs, attempts - 1);
    throw error;
  }
  return node;
}

/**
 * After a failed test, prints the tail of each node's output: a multi-node failure is hard to
 * reproduce, and what the nodes logged is the first thing to read.
 */
export function showNodeOutputOnFailure(nodes: () => readonly NodeProcess[]): void {
  afterEach((context) => {
    if (context.task.result?.state !== "fail") return;
    for (const [i, n] of nodes().entries()) {
      console.error(`--- node ${i + 1} output (tail) ---\n${n.output().slice(-4000)}`);
    }
  });
}
