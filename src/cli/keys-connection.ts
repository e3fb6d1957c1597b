import type { Command } from "commander";
import { LatchkeyClient } from "@latchkey/client";
import { describeFailure, exitCodeOf, UsageError } from "./exit-codes.js";

/** Where `latchkey keys ...` connects and as whom: flags first, then the environment. */
export interface ConnectionFlags {
  url?: string;
  apiId?: string;
  apiKey?: string;
}

/** Adds `--url`, `--api-id` and `--api-key` to a key command. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option("--url <url>", "server base URL (env LATCHKEY_URL)")
    .option("--api-id <id>", "api_id of the key to act as (env LATCHKEY_API_ID)")
    .option("--api-key <secret>", "its secret (env LATCHKEY_API_KEY; prefer the env, flags show in `ps`)");
}

/**
 * Builds the client for one command. The environment is read here rather than in `src/config.ts`
 * because these are a client's credentials, not server configuration. Rate-limit waits are announced on
 * stderr, so a person knows why the command pauses.
 */
export function connect(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): LatchkeyClient {
  const baseUrl = flags.url ?? env.LATCHKEY_URL;
  const apiId = flags.apiId ?? env.LATCHKEY_API_ID;
  const apiKey = flags.apiKey ?? env.LATCHKEY_API_KEY;
  const missing = [
    baseUrl ? undefined : "LATCHKEY_URL (or --url)",
    apiId ? undefined : "LATCHKEY_API_ID (or --api-id)",
    apiKey ? undefined : "LATCHKEY_API_KEY (or --api-key)",
  ].filter((name) => name !== undefined);
  if (!baseUrl || !apiId || !apiKey) throw new UsageError(`Missing ${missing.join(", ")}.`);
  try {
    return new LatchkeyClient({
      baseUrl,
      apiId,
      apiKey,
      onRetry: ({ delayMs, attempt, error }) =>
        process.stderr.write(
          `latchkey: ${error.message} Waiting ${Math.ceil(delayMs / 1000)} s before retry ${attempt}.\n`,
        ),
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Wraps a command's action: a failure becomes one line on stderr and the documented exit status, never
 * a stack trace. `process.exitCode` rather than `process.exit()`, so pending output is flushed.
 */
export function action<A extends unknown[]>(
  work: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await work(...args);
    } catch (error) {
      process.stderr.write(`latchkey: ${describeFailure(error)}\n`);
      process.exitCode = exitCodeOf(error);
    }
  };
}
