import { spawn } from "node:child_process";
import type { CreatedKey, RotationProgress } from "@latchkey/client";
import { type ConnectionFlags, connect } from "./keys-connection.js";
import { formatKey, printJson } from "./keys-output.js";
import { printable } from "./text-table.js";
import { assertCanWriteNew, writeCredentialsFile } from "./keys-secret-file.js";

/** Flags of `keys rotate`. */
export interface RotateFlags extends ConnectionFlags {
  out?: string;
  /** Rotate by roll, the old secret working this many seconds. */
  overlap?: number;
  verifyCommand?: string;
  json?: boolean;
}

/**
 * Runs the user's own check (reload the application, probe its health) through the shell. Its output
 * goes to stderr, keeping stdout for the credentials and JSON. It learns the new key from the
 * environment: LATCHKEY_NEW_KEY_ID, LATCHKEY_NEW_API_ID, LATCHKEY_NEW_API_KEY and, with --out,
 * LATCHKEY_NEW_CREDENTIALS_FILE.
 */
function runVerifyCommand(command: string, key: CreatedKey, out: string | undefined): Promise<void> {
  const env = {
    ...process.env,
    LATCHKEY_NEW_KEY_ID: key.id,
    LATCHKEY_NEW_API_ID: key.api_id,
    LATCHKEY_NEW_API_KEY: key.api_key,
    ...(out !== undefined ? { LATCHKEY_NEW_CREDENTIALS_FILE: out } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, env, stdio: ["ignore", 2, 2] });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`The verify command exited with ${signal ? `signal ${signal}` : `status ${code}`}.`),
        );
    });
  });
}

function describeStep(progress: RotationProgress, flags: RotateFlags): string {
  const { oldKey, newKey } = progress;
  switch (progress.step) {
    case "read":
      return `read old key ${oldKey.id} ("${printable(oldKey.name)}"${oldKey.enabled ? "" : ", already disabled"})`;
    case "create":
      return `created new key ${newKey?.id} (api_id ${newKey?.api_id}) with the same configuration`;
    case "roll":
      return `rolled ${oldKey.id}: same api_id, a new secret; the old one works for ${flags.overlap ?? 0} s`;
    case "store":
      return flags.out !== undefined
        ? `stored the new credentials in ${flags.out} (mode 0600)`
        : "printed the new credentials to stdout";
    case "verify":
      return flags.verifyCommand !== undefined
        ? "verified: the new credentials authenticate and the verify command succeeded"
        : "verified: the new credentials authenticate";
    case "disable":
      return `disabled old key ${oldKey.id}`;
  }
}

const STEP_NUMBER = { read: 1, create: 2, roll: 2, store: 3, verify: 4, disable: 5 } as const;

/**
 * `keys rotate`: create -> store -> verify -> disable, each step shown on stderr as it completes. The
 * new credentials reach stdout (or --out) at the store step, before the old key is touched, so they are
 * never lost even if a later step fails.
 */
export async function rotateCommand(id: string, flags: RotateFlags): Promise<void> {
  const client = connect(flags);
  if (flags.out !== undefined) await assertCanWriteNew(flags.out);
  const stepCount = flags.overlap === undefined ? 5 : 4;
  const newKey = await client.keys.rotate(id, {
    ...(flags.overlap !== undefined ? { overlapSeconds: flags.overlap } : {}),
    store: async (key) => {
      if (flags.out !== undefined) await writeCredentialsFile(flags.out, key);
      const { api_key: _secret, ...withoutSecret } = key;
      const shown = flags.out !== undefined ? withoutSecret : key;
      if (flags.json) printJson(shown);
      else if (flags.out === undefined) {
        process.stdout.write(
          `New credentials; store them now, the secret is not shown again:\n${formatKey(key)}`,
        );
      }
    },
    ...(flags.verifyCommand !== undefined
      ? { verify: (key: CreatedKey) => runVerifyCommand(flags.verifyCommand ?? "", key, flags.out) }
      : {}),
    onStep: (progress) =>
      process.stderr.write(`[${STEP_NUMBER[progress.step]}/${stepCount}] ${describeStep(progress, flags)}\n`),
  });
  process.stderr.write(
    flags.overlap === undefined
      ? `Rotated ${id}: use ${newKey.id} (api_id ${newKey.api_id}) from now on.\n`
      : `Rotated ${id} by roll: use its new secret from now on; the old one stops within ${flags.overlap} s.\n`,
  );
}
