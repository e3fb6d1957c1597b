import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Where LATCHKEY_DATABASE_URL points, in the words the start log and the CLI's messages use. */
export type DatabaseLocation =
  | { kind: "sqlite"; /** Absolute path of the file, or `:memory:`. */ path: string }
  | { kind: "postgres"; /** `host:port/database`: never the user name or the password. */ address: string };

/** Resolves a database URL; a relative SQLite path is relative to the current directory. */
export function databaseLocation(databaseUrl: string): DatabaseLocation {
  if (databaseUrl.startsWith("sqlite:")) {
    const path = databaseUrl.slice("sqlite:".length);
    return { kind: "sqlite", path: path === ":memory:" ? path : resolve(path) };
  }
  try {
    const url = new URL(databaseUrl);
    return { kind: "postgres", address: `${url.hostname || "localhost"}:${url.port || 5432}${url.pathname}` };
  } catch {
    return { kind: "postgres", address: "(unparsable URL)" };
  }
}

/** One line naming the database: `SQLite /srv/latchkey/data/latchkey.db`, `PostgreSQL db1:5432/latchkey`. */
export function describeDatabase(databaseUrl: string): string {
  const location = databaseLocation(databaseUrl);
  return location.kind === "sqlite" ? `SQLite ${location.path}` : `PostgreSQL ${location.address}`;
}

/** The folder of a SQLite database file; undefined on PostgreSQL and for `:memory:`. */
export function sqliteFolder(databaseUrl: string): string | undefined {
  const location = databaseLocation(databaseUrl);
  return location.kind === "sqlite" && location.path !== ":memory:" ? dirname(location.path) : undefined;
}

/**
 * Refuses to open a SQLite database that does not exist yet, unless `create` says to: run from the
 * wrong folder, a relative `sqlite:./data/latchkey.db` would otherwise make a new, empty database there
 * and every command would then report that nothing exists.
 */
export function assertDatabaseExists(databaseUrl: string, create: boolean): void {
  const location = databaseLocation(databaseUrl);
  if (create || location.kind !== "sqlite" || location.path === ":memory:") return;
  if (existsSync(location.path)) return;
  throw new Error(
    `No database at ${location.path} (LATCHKEY_DATABASE_URL=${databaseUrl}, relative to ${process.cwd()}). ` +
      "Run latchkey from the folder the server runs in, set LATCHKEY_DATABASE_URL, " +
      "or pass --create (LATCHKEY_DATABASE_CREATE=on) to create a new database there.",
  );
}

/**
 * A URL as a message may repeat it: the password, if any, replaced by `***` (also in a URL that does
 * not parse, such as one with an unsupported scheme, or a password holding `@` or `/`).
 */
export function withoutPassword(url: string): string {
  // The scheme with whatever slashes follow it, so that a mistyped `postgres:/user:pw@host` is covered.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/.exec(url)?.[0];
  if (!scheme) return url;
  const rest = url.slice(scheme.length);
  const at = rest.split(/[?#]/, 1)[0]?.lastIndexOf("@") ?? -1;
  const colon = rest.indexOf(":");
  if (at < 0 || colon < 0 || colon > at) return url;
  return `${scheme}${rest.slice(0, colon)}:***${rest.slice(at)}`;
}
