import { LatchkeyError } from "../domain/errors.js";

/**
 * The one place that tells a database that is away (or too busy to answer) from a query that is wrong:
 * the first becomes `503 database_unavailable` with `Retry-After: 1`, the second stays what it is.
 */

/** pg's SQLSTATE codes of a server that is going or gone: admin/crash shutdown, cannot connect now. */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** Node's socket errors when PostgreSQL cannot be reached or the connection broke. */
const SOCKET_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** pg's messages for a connection lost or never made (they carry no code). */
const CONNECTION_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Connection ended unexpectedly",
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Whether `error` says PostgreSQL's connection was lost or could not be made (SQLSTATE class 08,
 * 57P01-57P03, a socket error, pg's own connection and timeout messages). After such an error during
 * COMMIT nobody knows whether the transaction was applied.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (code !== undefined && (UNAVAILABLE_SQLSTATES.has(code) || SOCKET_ERRORS.has(code))) return true;
  if (code !== undefined && /^08[0-9A-Z]{3}$/.test(code)) return true;
  return CONNECTION_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * Whether `error` is a database that cannot serve now, though it may be reachable: SQLite's file is
 * locked by another writer beyond the busy timeout, or PostgreSQL cancelled a statement that ran past
 * `statement_timeout` (57014) or waited past `lock_timeout` (55P03).
 */
function isBusy(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) return false;
  return (
    code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || code === "57014" || code === "55P03"
  );
}

const RETRY = { retryAfterSeconds: 1 };

/** The 503 of a database that is away; nothing was changed. */
export function databaseUnavailable(cause?: unknown): LatchkeyError {
  const error = new LatchkeyError(
    "database_unavailable",
    "The database cannot be reached right now; nothing was changed. Retry in a second.",
    RETRY,
  );
  // For a debugger or a log line that asks; the answer never shows it.
  error.cause = cause;
  return error;
}

/** The 503 of a write whose COMMIT lost its connection: it may or may not have been applied. */
export function commitOutcomeUnknown(): LatchkeyError {
  return new LatchkeyError(
    "database_unavailable",
    "The database connection was lost while the change was being committed: the change may or may not " +
      "have been applied; retry with the same Idempotency-Key (a create), or read the record to see.",
    RETRY,
  );
}

/** `error` as the domain error it stands for when the database is away or busy; otherwise unchanged. */
export function asDatabaseError(error: unknown): unknown {
  if (error instanceof LatchkeyError) return error;
  return isConnectionLoss(error) || isBusy(error) ? databaseUnavailable(error) : error;
}

/** Whether `error` is the 503 of a database that is away (already translated). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return error instanceof LatchkeyError && error.code === "database_unavailable";
}

/** A unique index refused the row: PostgreSQL's 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
