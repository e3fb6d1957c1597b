import { execFile } from "node:child_process";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { assertOutsideQuickLoop } from "./quick-loop.js";
import { scaledMs } from "./start-deadline.js";

const root = new URL("../../", import.meta.url).pathname;
/** The built `latchkey` command (`npm run build`). */
export const CLI = join(root, "dist/cli/bin.js");
/** What the worker runs: standard input set up, then the command (cli-worker.mjs). */
const ENTRY = join(root, "test/helpers/cli-worker.mjs");

/** What a finished `latchkey` run left behind. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  /** The whole environment of the command: nothing of the test process's is added. */
  env: Record<string, string | undefined>;
  /** Standard input, ended after it (a pipe, not a terminal); empty by default. */
  stdin?: string;
}

/**
 * Runs the built `latchkey` (dist/cli/bin.js) as a person's shell would, but in a worker thread of the
 * test's own process: its own argv, environment, standard streams, event loop and exit code, without
 * starting a process for each of a file's dozens of commands (each `node` start cost more than the
 * command). Asynchronous on purpose: a server under test living in this process keeps answering while
 * the command waits for it. A command still running after 20 s (scaled by the load) is stopped with
 * code 1, as a killed process would be reported.
 */
export function runLatchkey(args: readonly string[], { env, stdin = "" }: CliRun): Promise<CliResult> {
  assertOutsideQuickLoop("The built CLI");
  const worker = new Worker(ENTRY, {
    argv: [...args],
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
    workerData: { bin: CLI, stdin },
    stdout: true,
    stderr: true,
  });
  let stdout = "";
  let stderr = "";
  worker.stdout.on("data", (chunk) => (stdout += String(chunk)));
  worker.stderr.on("data", (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), scaledMs(20_000));
    // An uncaught error ends the thread with code 1 as it would end a process; its report goes where
    // Node would print it.
    worker.on("error", (error) => (stderr += `${error.stack ?? String(error)}\n`));
    worker.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `runLatchkey` as a process of its own, for the commands whose children write to the command's own
 * file descriptors (`keys rotate --verify-command`), which a worker thread shares with the test.
 */
export function runLatchkeyProcess(args: readonly string[], { env, stdin = "" }: CliRun): Promise<CliResult> {
  assertOutsideQuickLoop("The built CLI");
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env, timeout: scaledMs(20_000) },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(new Error(error.message, { cause: error }));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin);
  });
}

/** The test process's environment without any LATCHKEY_* variable, so none leaks into a command. */
export function environmentWithoutLatchkey(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LATCHKEY_")));
}
