import { hasValidSecretChecksum, SECRET_PREFIX } from "./credentials.js";

/** One latchkey secret found in a text. */
export interface FoundSecret {
  /** The secret as it appears. */
  secret: string;
  /** 1-based line of its first character. */
  line: number;
  /** 1-based column (in UTF-16 code units) of its first character. */
  column: number;
}

// `lksk_`, 32 body characters and a 6-character checksum, not glued to other letters or digits on
// either side: the pattern secret scanners are given (docs/secret-scanning.md).
const CANDIDATE = new RegExp(`(?<![0-9A-Za-z])${SECRET_PREFIX}[0-9A-Za-z]{38}(?![0-9A-Za-z])`, "g");

/**
 * Every string of `text` that has the shape and a valid CRC32 checksum of a latchkey secret, in order.
 * The checksum is what tells a real secret from a placeholder or a typo, offline: nothing is looked up.
 */
export function findSecrets(text: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    for (; scanned < match.index; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
    }
    if (hasValidSecretChecksum(match[0])) {
      found.push({ secret: match[0], line, column: match.index - lineStart + 1 });
    }
  }
  return found;
}
