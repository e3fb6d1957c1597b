import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where the key material that seals key-create responses comes from (docs/keys.md). */
export type ServerKeySource =
  { type: "material"; material: string | Buffer; origin: string } | { type: "none"; reason: string };

/** The file created beside a SQLite database when no pepper or key file is configured. */
export const SQLITE_SERVER_KEY_FILE = "latchkey-server.key";

function readKeyFile(path: string): string {
  const text = readFileSync(path, "utf8").trim();
  if (text.length < 32) throw new Error(`LATCHKEY_SERVER_KEY_FILE ${path}: needs at least 32 characters`);
  return text;
}

/** Reads the file, or creates it (0600, 32 random bytes in base64) where it does not exist yet. */
function readOrCreate(path: string): string {
  try {
    return readKeyFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another process created it first: read theirs.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return readKeyFile(path);
}

/**
 * The pepper if there is one; else `LATCHKEY_SERVER_KEY_FILE` (which must exist: every node needs the
 * same); else, on SQLite, a key file beside the database, created 0600 on first start (an in-memory
 * database gets a key of its own, gone with it). On PostgreSQL without either there is none.
 */
export function serverKeySource(options: {
  secretPepper: string | undefined;
  serverKeyFile: string | undefined;
  databaseUrl: string;
}): ServerKeySource {
  const { secretPepper, serverKeyFile, databaseUrl } = options;
  if (secretPepper) return { type: "material", material: secretPepper, origin: "LATCHKEY_SECRET_PEPPER" };
  if (serverKeyFile) return { type: "material", material: readKeyFile(serverKeyFile), origin: serverKeyFile };
  if (databaseUrl === "sqlite::memory:") {
    return { type: "material", material: randomBytes(32), origin: "memory" };
  }
  if (databaseUrl.startsWith("sqlite:")) {
    const path = join(dirname(databaseUrl.slice("sqlite:".length)), SQLITE_SERVER_KEY_FILE);
    return { type: "material", material: readOrCreate(path), origin: path };
  }
  return {
    type: "none",
    reason:
      "This server cannot keep the secret of a key create sent with an Idempotency-Key: a repeat " +
      "answers the first record with its secret withheld (Idempotent-Secret-Withheld: true). Set " +
      "LATCHKEY_SECRET_PEPPER or LATCHKEY_SERVER_KEY_FILE (the same on every node) to keep it sealed.",
  };
}
