import { crc32 } from "node:zlib";
import { isKeyId } from "../domain/credentials.js";
import { invalidRequest } from "../domain/errors.js";
import type { ListPosition } from "../store/key-store.js";

/**
 * `page_start` cursors: an opaque base64url of the last returned record's (created_at, id) and a CRC32 of
 * them. Being a keyset and not an offset, a page neither repeats nor skips keys when others are created
 * meanwhile. The checksum makes an edited or corrupted cursor a 400 instead of a silently different page.
 */
function checksum(payload: string): string {
  return crc32(payload).toString(36);
}

export function encodeCursor(position: ListPosition): string {
  const payload = `${position.createdAt}.${position.id}`;
  return Buffer.from(`${payload}.${checksum(payload)}`, "utf8").toString("base64url");
}

/**
 * Reads a cursor back. `isId` says which ids this listing can contain (key ids by default; a resource
 * family passes its own), so a cursor of another listing is refused too.
 */
export function decodeCursor(cursor: string, isId: (value: string) => boolean = isKeyId): ListPosition {
  const invalid = () =>
    invalidRequest(
      "page_start is not a cursor this service issued: pass pagination.next_page_start unchanged.",
      "/query/page_start",
    );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalid();
  const bytes = Buffer.from(cursor, "base64url");
  // The unused low bits of a last character let several strings decode alike: accept only the one issued.
  if (bytes.toString("base64url") !== cursor) throw invalid();
  const match = /^(\d{1,15})\.([^.]+)\.([0-9a-z]{1,7})$/.exec(bytes.toString("utf8"));
  if (!match?.[1] || !match[2] || !match[3] || !isId(match[2])) throw invalid();
  if (checksum(`${match[1]}.${match[2]}`) !== match[3]) throw invalid();
  return { createdAt: Number(match[1]), id: match[2] };
}
