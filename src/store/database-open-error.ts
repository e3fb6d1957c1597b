import { isConnectionLoss, isDatabaseUnavailable } from "./database-errors.js";
import { describeDatabase } from "./database-location.js";

/**
 * Why a database could not be opened, in words an operator can act on: where it was looked for (never
 * the user name or password), the cause, and the setting to change. Used when a server starts and when
 * an operator command opens the database; requests keep their own 503 (database-errors.ts).
 */

/** Causes by Node's socket error code or PostgreSQL's SQLSTATE. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused: nothing listens at that address and port",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved (DNS did not answer)",
  ETIMEDOUT: "no answer in time",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ECONNRESET: "the connection was closed by the other side",
  "28P01": "PostgreSQL refused the user name or password",
  "28000": "PostgreSQL refused this user from this address (pg_hba.conf)",
  "3D000": "the database does not exist",
  "57P03": "PostgreSQL is starting up or shutting down",
  "53300": "PostgreSQL has no connection left (max_connections)",
};

/** What to change for each cause; the default is to start the database or correct the URL. */
const REMEDIES: Record<string, string> = {
  "28P01": "correct the user name and password in LATCHKEY_DATABASE_URL",
  "28000": "allow this user and address in pg_hba.conf, or correct LATCHKEY_DATABASE_URL",
  "3D000": "create the database (createdb), or correct its name in LATCHKEY_DATABASE_URL",
  "53300": "raise max_connections, or run fewer nodes (each opens at most 10 connections)",
};

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The innermost error that carries a code or a message of its own (the 503 wraps pg's error). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  // Node's AggregateError of every address tried (IPv4 and IPv6 of localhost): the first says why.
  if (current instanceof AggregateError && current.errors.length > 0) return current.errors[0];
  return current;
}

function causeInWords(error: unknown): { words: string; code: string | undefined } {
  const root = rootCause(error);
  const code = codeOf(root);
  if (code !== undefined && CAUSES[code]) return { words: `${CAUSES[code]} (${code})`, code };
  const message = root instanceof Error ? root.message : String(root);
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return { words: "no answer within 3 seconds", code };
  }
  return { words: code ? `${message} (${code})` : message, code };
}

/**
 * `error`, thrown while a PostgreSQL database was first opened, as an error whose message names the
 * database, the cause and LATCHKEY_DATABASE_URL, when the cause is reaching or entering it; any other
 * error (SQLite's name their file already) is returned as it is.
 */
export function databaseOpenError(databaseUrl: string, error: unknown): unknown {
  if (databaseUrl.startsWith("sqlite:")) return error;
  const root = rootCause(error);
  const known = CAUSES[codeOf(root) ?? ""] !== undefined;
  if (!known && !isDatabaseUnavailable(error) && !isConnectionLoss(root)) return error;
  const { words, code } = causeInWords(error);
  const remedy =
    (code && REMEDIES[code]) ??
    "start PostgreSQL there, or set LATCHKEY_DATABASE_URL to the address it listens on";
  const opened = new Error(
    `Cannot open ${describeDatabase(databaseUrl)} (LATCHKEY_DATABASE_URL): ${words}. To fix: ${remedy}.`,
  );
  opened.cause = error;
  return opened;
}
