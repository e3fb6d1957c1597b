import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { CreatedKey } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";

/**
 * Checks, before any key is created, that the credentials can be written to `path`: its directory is
 * writable and the file does not exist yet. An existing file is never overwritten, because it may hold
 * the only copy of the credentials still in use if the rotation stops halfway.
 */
export async function assertCanWriteNew(path: string): Promise<void> {
  const directory = dirname(resolve(path));
  try {
    await access(directory, constants.W_OK);
  } catch {
    throw new UsageError(`Cannot write --out ${path}: directory ${directory} is missing or not writable.`);
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing)
    throw new UsageError(`--out ${path} already exists; latchkey never overwrites a credentials file.`);
}

/**
 * Writes the new key's record, secret included, as JSON readable only by its owner (mode 0600). It is
 * written to a temporary file created 0600 and renamed into place, so the secret is never readable by
 * others, not even for an instant, and a reader never sees half a file.
 */
export async function writeCredentialsFile(path: string, key: CreatedKey): Promise<void> {
  const target = resolve(path);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const file = await open(temporary, "wx", 0o600);
  try {
    // The umask could only remove bits from 0600; chmod anyway so the mode is exactly what is promised.
    await file.chmod(0o600);
    await file.writeFile(`${JSON.stringify(key, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    const existing = await stat(target).catch(() => undefined);
    if (existing) throw new Error(`${path} appeared while rotating; not overwriting it.`);
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
