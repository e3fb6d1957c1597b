/**
 * The path of a forward-auth request's original URI, checked before any route is matched.
 *
 * The gateway's upstream will read the path with its own rules: Tomcat, Jetty and Spring drop `;...`
 * path parameters (so `/a/..;/b` is `/b` there), some servers treat `\` as `/`, fold full-width dots
 * (U+FF0E) to `.`, decode twice, or merge `//`. A path that any of them could read as another path is
 * refused, never matched: after one percent-decoding it must consist only of RFC 3986 unreserved
 * characters, `/` and the sub-delims other than `;`, with no `.` or `..` segment and no empty segment
 * between two slashes. The query is not part of the path and is never matched.
 */
export type ForwardedPath =
  /** A plain path, decoded once: what the route table is matched against. */
  | { type: "path"; path: string }
  /** A path latchkey refuses to match; `reason` names what was wrong, for the 400's message. */
  | { type: "refused"; reason: string };

// RFC 3986: unreserved = ALPHA DIGIT - . _ ~ ; sub-delims = ! $ & ' ( ) * + , ; = (without `;` here).
const ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,=]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;
/** U+FF0E as a string, and as the UTF-8 bytes a header carries read one byte per character (latin1). */
const FULL_WIDTH_DOT = ["\uff0e", "\u00ef\u00bc\u008e"];

/** A refusal naming what the path contains, e.g. "it contains a dot segment ('..')". */
const refused = (what: string): ForwardedPath => ({ type: "refused", reason: `it contains ${what}` });

/** Why a character (after decoding) is not allowed in a path; `encoded` is its escape, if it was one. */
function characterProblem(char: string, encoded?: string): string {
  const as = encoded === undefined ? "" : ` (encoded as ${encoded})`;
  const code = char.charCodeAt(0);
  if (char === ";") return `a ';'${as}: servlet containers read ';...' as path parameters`;
  if (char === "\\") return encoded === undefined ? "a '\\'" : `an encoded '\\' (${encoded})`;
  if (char === "/") return `an encoded '/' (${encoded})`;
  if (code === 0) return `a NUL (${encoded ?? "\\0"})`;
  // Named as it arrived (a header is read one byte per character), so an operator can find it.
  if (code > 0x7e) return `a non-ASCII character${as || ` ('${char}')`}`;
  if (code < 0x21) return `a space or control character${as}`;
  return `the character '${char}'${as}`;
}

/** Decodes the raw path's percent-escapes once, refusing every character outside the allowed set. */
function decodeOnce(raw: string): ForwardedPath {
  let path = "";
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === "/") {
      path += char;
      continue;
    }
    if (char !== "%") {
      if (!ALLOWED.test(char)) return refused(characterProblem(char));
      path += char;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!HEX.test(hex)) return refused(`a bad percent-escape ('${raw.slice(i, i + 3)}')`);
    const decoded = String.fromCharCode(parseInt(hex, 16));
    i += 2;
    // A `%` may only start a second escape in a double-encoded path: refused as such below.
    if (decoded !== "%" && !ALLOWED.test(decoded)) return refused(characterProblem(decoded, `%${hex}`));
    path += decoded;
  }
  if (/%[0-9A-Fa-f]{2}/.test(path)) {
    return refused("a double-encoded escape: decoding the path a second time would change it");
  }
  if (path.includes("%")) return refused("a '%' that is not part of an escape (%25)");
  return { type: "path", path };
}

/**
 * Reads the path of `uri` (an origin-form request target, as `X-Forwarded-Uri` or `X-Original-URI`
 * carry it) and checks it. Pure: no I/O, the same answer every time.
 */
export function parseForwardedPath(uri: string): ForwardedPath {
  const raw = uri.split("?")[0] ?? "";
  if (!raw.startsWith("/")) return { type: "refused", reason: "it does not start with '/'" };
  const fullWidth = raw.toLowerCase();
  if (FULL_WIDTH_DOT.some((dot) => raw.includes(dot)) || fullWidth.includes("%ef%bc%8e")) {
    return refused("a full-width dot (U+FF0E)");
  }
  const decoded = decodeOnce(raw);
  if (decoded.type === "refused") return decoded;
  const segments = decoded.path.split("/");
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment === "." || segment === "..") return refused(`a dot segment ('${segment}')`);
    // A trailing slash is an empty last segment, and common; `//` elsewhere is merged by some servers.
    if (segment === "" && i < segments.length - 1) return refused("an empty segment ('//')");
  }
  return decoded;
}
