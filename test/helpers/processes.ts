import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { CLI, type CliResult, runLatchkey } from "./cli-runner.js";
import { assertOutsideQuickLoop } from "./quick-loop.js";
import { waitUntilStarted } from "./start-deadline.js";
import { listensOn } from "./listens-on.js";
import { killOnExit } from "./kill-on-exit.js";

const root = new URL("../../", import.meta.url).pathname;
export { CLI };
export const MAIN = join(root, "dist/main.js");

/** A temporary directory removed when the test ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-test-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the built `latchkey` command and returns its exit code and output, whatever the code. */
export async function latchkeyStatus(args: string[], env: Record<string, string>): Promise<CliResult> {
  // Suites give each command a fresh SQLite path, which the CLI creates only when told to; the refusal
  // itself is tested with LATCHKEY_DATABASE_CREATE set to "" (test/process/first-start.test.ts).
  return runLatchkey(args, { env: { ...process.env, LATCHKEY_DATABASE_CREATE: "on", ...env } });
}

/** Runs the built `latchkey` command and returns its output; rejects on a non-zero exit. */
export async function latchkey(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const result = await latchkeyStatus(args, env);
  if (result.code !== 0) {
    throw Object.assign(
      new Error(`latchkey ${args.join(" ")} exited ${result.code}: ${result.stderr}`),
      result,
    );
  }
  return result;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything written to standard error so far. */
  stderr(): string;
  /** Everything written to standard output (the logs) so far. */
  stdout(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * Starts the server on `port` and waits until `/healthz` answers: `node dist/main.js` (as `npm start`
 * does) or, given `args`, the CLI (`node dist/cli/bin.js serve ...`). Killed when the test ends.
 */
export async function startServer(
  env: Record<string, string>,
  port: number,
  args?: string[],
): Promise<ServerProcess> {
  return launchServer(env, port, args, (kill) => onTestFinished(kill));
}

/**
 * `startServer` for a suite's `beforeAll`: the caller stops it (`child.kill()`) in its teardown, and an
 * exit hook kills it in any case.
 */
export async function startSuiteServer(env: Record<string, string>, port: number): Promise<ServerProcess> {
  return launchServer(env, port, undefined, (_kill, child) => killOnExit(child));
}

async function launchServer(
  env: Record<string, string>,
  port: number,
  args: string[] | undefined,
  killLater: (kill: () => void, child: ChildProcess) => void,
): Promise<ServerProcess> {
  assertOutsideQuickLoop("A server process of the build");
  const child = spawn(process.execPath, args ? [CLI, ...args] : [MAIN], {
    // Suites read the first credentials from standard error (LATCHKEY_BOOTSTRAP=print); the default,
    // a 0600 file, is tested on its own (test/process/first-start.test.ts).
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      LATCHKEY_LOG_LEVEL: "warn",
      LATCHKEY_BOOTSTRAP: "print",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  killLater(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  }, child);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilStarted({
      what: "the server",
      ready: async () => (await fetch(`${baseUrl}/healthz`)).ok && listensOn(child.pid, port),
      failed: () => (child.exitCode === null ? undefined : `exited early (${child.exitCode})`),
      output: () => stderr,
      baseMs: 15_000,
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return { child, baseUrl, stderr: () => stderr, stdout: () => stdout, exited };
}

/**
 * One organization made with the CLI in the database `env` names, its key groups raised so that load
 * is never rate limited: the organization and the owner key's `api_id` and secret.
 */
export async function cliOrganization(
  env: Record<string, string>,
): Promise<{ orgId: string; owner: { apiId: string; secret: string } }> {
  const { stdout } = await latchkey(["org", "create", "--name", "acme", "--json"], env);
  const created = JSON.parse(stdout) as {
    organization: { id: string };
    key: { api_id: string; api_key: string };
  };
  const orgId = created.organization.id;
  for (const group of ["api-key:read", "api-key:write"]) {
    await latchkey(["org", "limits", "--org", orgId, "--group", group, "--quota", "1000000"], env);
  }
  return { orgId, owner: { apiId: created.key.api_id, secret: created.key.api_key } };
}

/**
 * A fresh SQLite file holding one organization (`cliOrganization`): the environment to start servers
 * over it, the organization, and the owner key's `api_id` and secret.
 */
export async function sqliteOrganization(): Promise<{
  env: Record<string, string>;
  orgId: string;
  owner: { apiId: string; secret: string };
}> {
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_BOOTSTRAP: "off",
  };
  return { env, ...(await cliOrganization(env)) };
}
