import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestKey } from "../helpers/build-test-app.js";
import { scaledMs } from "../helpers/start-deadline.js";

const bin = fileURLToPath(new URL("../../dist/cli/bin.js", import.meta.url));

/** What a finished `latchkey` process left behind. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment that points the CLI at `url` as `key`; the caller's own LATCHKEY_* never leak in. */
export function cliEnv(url: string, key: Pick<TestKey, "apiId" | "secret">): Record<string, string> {
  return { LATCHKEY_URL: url, LATCHKEY_API_ID: key.apiId, LATCHKEY_API_KEY: key.secret };
}

/**
 * Runs the built bin as a separate process, as a person or a script would. Asynchronous on purpose:
 * the server under test lives in this process and must keep answering while the CLI waits for it.
 */
export function runCli(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("LATCHKEY_")),
  );
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...inherited, ...env }, timeout: scaledMs(20_000), ...(cwd ? { cwd } : {}) },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(error);
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}
