import { KeyRotationError, LatchkeyError } from "@latchkey/client";

/**
 * Exit statuses of every `latchkey` command, printed by `--help` and documented in docs/cli.md so
 * scripts can branch on them. Kept few on purpose: each one calls for a different reaction.
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** It failed at run time: not found, quota reached, database, server or network error. */
  failed: 1,
  /** The command was refused as given: bad flags, missing credentials, or input the server rejected (400). */
  usage: 2,
  /** The credentials did not authenticate (401) or lack the permission or authority (403). */
  denied: 3,
  /** A rotation stopped after creating the new key: the old key is still enabled, the new one needs cleanup. */
  rotationIncomplete: 4,
  /** Still rate-limited after the retries (429), or a plan limit: try later, do not loop. */
  limited: 5,
  /** `keys scan` found latchkey secrets in the text: revoke them (and keep them out of the repository). */
  secretsFound: 6,
} as const;

/** The table of EXIT, as `--help` prints it after every command's own help. */
export const EXIT_STATUS_HELP = `
Exit status (every command):
  ${EXIT.ok}  done
  ${EXIT.failed}  failed at run time: not found, quota reached, database, server or network error
  ${EXIT.usage}  usage: unknown command, bad flags, missing credentials, or input the server rejected (400)
  ${EXIT.denied}  credentials: not authenticated (401) or not permitted (403)
  ${EXIT.rotationIncomplete}  keys rotate stopped after creating the new key; the old key is still enabled
  ${EXIT.limited}  still rate-limited after the retries, or a plan limit (429)
  ${EXIT.secretsFound}  keys scan found latchkey secrets in the text
`;

/** A command-line mistake found before any request was sent. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

function exitCodeOfStatus(error: LatchkeyError): number {
  if (error.status === 400) return EXIT.usage;
  if (error.status === 401 || error.status === 403) return EXIT.denied;
  if (error.status === 429) return EXIT.limited;
  return EXIT.failed;
}

/** The exit status that tells a script what went wrong. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof KeyRotationError) {
    if (error.newKeyId !== undefined) return EXIT.rotationIncomplete;
    const cause = error.cause;
    return cause instanceof LatchkeyError ? exitCodeOfStatus(cause) : EXIT.failed;
  }
  if (error instanceof LatchkeyError) return exitCodeOfStatus(error);
  return EXIT.failed;
}

/** One line for stderr: the server's message, then its status and code so a person can search for them. */
export function describeFailure(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
  if (error instanceof LatchkeyError && error.status > 0) {
    const request = error.requestId ? `, request ${error.requestId}` : "";
    return `${message} (${error.status} ${error.code}${request})`;
  }
  return message;
}
