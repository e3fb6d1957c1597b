import { isKeyId } from "../domain/credentials.js";
import { invalidRequest } from "../domain/errors.js";
import type { ListPosition } from "../store/key-store.js";

/**
 * `page_start` cursors: an opaque base64url of the last returned key's (created_at, id). Being a keyset
 * and not an offset, a page neither repeats nor skips keys when others are created meanwhile.
 */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.createdAt}.${position.id}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): ListPosition {
  const invalid = () =>
    invalidRequest(
      "page_start is not a cursor this service issued: pass pagination.next_page_start unchanged.",
      "/query/page_start",
    );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalid();
  const match = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match?.[1] || !match[2] || !isKeyId(match[2])) throw invalid();
  return { createdAt: Number(match[1]), id: match[2] };
}
