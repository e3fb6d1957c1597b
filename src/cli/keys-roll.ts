import { InvalidArgumentError } from "commander";
import { type ConnectionFlags, connect } from "./keys-connection.js";
import { formatKey, printJson } from "./keys-output.js";
import { assertCanWriteNew, writeCredentialsFile } from "./keys-secret-file.js";
import { parseInteger } from "./parse.js";

/** The longest overlap the server accepts: a week. */
const MAX_OVERLAP_SECONDS = 604_800;

/** Commander parser for `--overlap`: whole seconds from 0 to a week. */
export function parseOverlap(value: string): number {
  const seconds = parseInteger(value);
  if (seconds > MAX_OVERLAP_SECONDS) {
    throw new InvalidArgumentError(`must be at most ${MAX_OVERLAP_SECONDS} seconds (a week).`);
  }
  return seconds;
}

/** Flags of `keys roll`. */
export interface RollFlags extends ConnectionFlags {
  overlap?: number;
  out?: string;
  json?: boolean;
}

/**
 * `keys roll`: one request; the new secret goes to stdout or --out, and when the old one stops to
 * stderr. It is sent once: a roll repeated after an unclear failure would end the overlap it began.
 */
export async function rollCommand(id: string, flags: RollFlags): Promise<void> {
  if (flags.out !== undefined) await assertCanWriteNew(flags.out);
  // Without --overlap the server's default applies (an hour, docs/key-lifecycle.md).
  const rolled = await connect(flags).keys.roll(
    id,
    flags.overlap === undefined ? {} : { overlapSeconds: flags.overlap },
  );
  if (flags.out !== undefined) await writeCredentialsFile(flags.out, rolled);
  const { api_key: _secret, ...withoutSecret } = rolled;
  if (flags.json) printJson(flags.out !== undefined ? withoutSecret : rolled);
  else if (flags.out === undefined) {
    process.stdout.write(`New secret; store it now, it is not shown again:\n${formatKey(rolled)}`);
  }
  process.stderr.write(
    `Rolled ${id}: the old secret ${
      Date.parse(rolled.previous_secret_expires_at) > Date.parse(rolled.updated_at)
        ? `works until ${rolled.previous_secret_expires_at}`
        : "no longer works"
    }.\n`,
  );
}
