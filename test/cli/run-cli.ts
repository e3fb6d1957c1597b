import type { TestKey } from "../helpers/build-test-app.js";
import {
  type CliResult,
  environmentWithoutLatchkey,
  runLatchkey,
  runLatchkeyProcess,
} from "../helpers/cli-runner.js";

export type { CliResult };

/** The environment that points the CLI at `url` as `key`; the caller's own LATCHKEY_* never leak in. */
export function cliEnv(url: string, key: Pick<TestKey, "apiId" | "secret">): Record<string, string> {
  return { LATCHKEY_URL: url, LATCHKEY_API_ID: key.apiId, LATCHKEY_API_KEY: key.secret };
}

/** Runs the built `latchkey` with `env` (and no LATCHKEY_* of the test process), as a script would. */
export function runCli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return runLatchkey(args, { env: { ...environmentWithoutLatchkey(), ...env }, ...(stdin ? { stdin } : {}) });
}

/** `runCli` as a process of its own: for a command whose children write to its file descriptors. */
export function runCliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runLatchkeyProcess(args, { env: { ...environmentWithoutLatchkey(), ...env } });
}
