import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseForwardedPath } from "../../src/domain/forwarded-path.js";

/** The path, or the refusal's reason. */
const outcome = (uri: string) => {
  const result = parseForwardedPath(uri);
  return result.type === "path" ? result.path : `refused: ${result.reason}`;
};

describe("the original URI's path: accepted", () => {
  test.each([
    ["/v1/image", "/v1/image"],
    ["/v1/image?size=large&x=../..;%00", "/v1/image"],
    ["/v1/%69mage", "/v1/image"],
    ["/v1/images/", "/v1/images/"],
    ["/", "/"],
    ["/v1/a-b_c~d.e", "/v1/a-b_c~d.e"],
    ["/v1/!$&'()*+,=", "/v1/!$&'()*+,="],
    ["/v1/...", "/v1/..."],
    ["/v1/.well-known/x", "/v1/.well-known/x"],
    ["/v1/a%2Eb", "/v1/a.b"],
  ])("%s -> %s", (uri, path) => {
    expect(outcome(uri)).toBe(path);
  });
});

describe("the original URI's path: refused, naming what was wrong", () => {
  test.each([
    ["/v1/templates/a/..;/..;/proxies", "a ';'"],
    ["/v1/proxies;jsessionid=1", "a ';'"],
    ["/v1/proxies%3B", "a ';' (encoded as %3B)"],
    ["/v1/templates\\..\\proxies", "a '\\'"],
    ["/v1/templates%5C..%5Cproxies", "an encoded '\\' (%5C)"],
    ["/v1/a%2Fb", "an encoded '/' (%2F)"],
    ["/v1/a%2fb", "an encoded '/' (%2f)"],
    ["/v1/image%00.png", "a NUL (%00)"],
    ["/v1/./image", "a dot segment ('.')"],
    ["/v1/usage/../image", "a dot segment ('..')"],
    ["/v1/..", "a dot segment ('..')"],
    ["/v1/%2e%2e/image", "a dot segment ('..')"],
    ["/v1/%2E./image", "a dot segment ('..')"],
    ["/v1/templates/\uff0e\uff0e/proxies", "a full-width dot (U+FF0E)"],
    ["/v1/templates/\u00ef\u00bc\u008e\u00ef\u00bc\u008e/proxies", "a full-width dot (U+FF0E)"],
    ["/v1/templates/%EF%BC%8E%ef%bc%8e/proxies", "a full-width dot (U+FF0E)"],
    ["/v1/caf\u00e9", "a non-ASCII character"],
    ["/v1/caf%C3%A9", "a non-ASCII character (encoded as %C3)"],
    ["/v1/%c0%ae%c0%ae/x", "a non-ASCII character (encoded as %c0)"],
    ["/v1/%252e%252e/proxies", "a double-encoded escape"],
    ["/v1/%25", "a '%' that is not part of an escape"],
    ["/v1/%zz", "a bad percent-escape ('%zz')"],
    ["/v1/%4", "a bad percent-escape ('%4')"],
    ["/v1/a b", "a space or control character"],
    ["/v1/a%20b", "a space or control character (encoded as %20)"],
    ["/v1/a%09b", "a space or control character (encoded as %09)"],
    ["/v1/image#top", "the character '#'"],
    ["/v1/a:b", "the character ':'"],
    ["/v1/a@b", "the character '@'"],
    ["/v1/a%3Fb", "the character '?' (encoded as %3F)"],
    ["/v1//proxies", "an empty segment ('//')"],
    ["//v1/proxies", "an empty segment ('//')"],
    ["v1/image", "it does not start with '/'"],
    ["http://example.com/v1/image", "it does not start with '/'"],
    ["", "it does not start with '/'"],
    ["*", "it does not start with '/'"],
  ])("%s: %s", (uri, reason) => {
    expect(outcome(uri)).toMatch(/^refused: /);
    expect(outcome(uri)).toContain(reason);
  });
});

// Every character that matters to some server's reading of a path, raw and encoded, in any order,
// among plain ones (three times as likely, so that a fair share of the paths is accepted).
const RISKY = [
  ".",
  "..",
  ";",
  "\\",
  "%",
  "%2e",
  "%2E",
  "%2f",
  "%2F",
  "%5c",
  "%5C",
  "%25",
  "%3b",
  "%00",
  "%252e",
  "%c0%ae",
  "\uff0e",
  "%ef%bc%8e",
  "\u00ef\u00bc\u008e",
  "?",
  "#",
  ":",
  " ",
];
const PLAIN = ["/", "a", "Z", "9", "-", "~", "_", "!", "=", ",", "e", "2", "f", "%61", "%7E"];
const piece = fc.oneof(
  { arbitrary: fc.constantFrom(...RISKY), weight: 1 },
  { arbitrary: fc.constantFrom(...PLAIN), weight: 3 },
);
const uris = fc.array(piece, { maxLength: 24 }).map((parts) => `/${parts.join("")}`);
const anyUris = fc.oneof(
  uris,
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => `/${s}`),
);

/** Decodes `path` again and again, as a careless upstream might, until it stops changing. */
function decodedForever(path: string): string[] {
  const readings = [path];
  let current = path;
  for (let i = 0; i < 5; i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      break;
    }
    readings.push(current);
  }
  return readings;
}

describe("the original URI's path: properties", () => {
  test("no accepted path has a dot segment, ';', '\\' or a non-ASCII character after any number of decodings", () => {
    fc.assert(
      fc.property(anyUris, (uri) => {
        const result = parseForwardedPath(uri);
        if (result.type === "refused") return;
        for (const reading of decodedForever(result.path)) {
          const folded = reading.normalize("NFKC");
          for (const segment of folded.split("/")) expect([".", ".."]).not.toContain(segment);
          expect(folded).not.toMatch(/[;\\\0]|[^\x21-\x7e]/);
        }
      }),
      { numRuns: 5000 },
    );
  });

  test("an accepted path decodes to itself, uses only the allowed characters, and is accepted again unchanged", () => {
    fc.assert(
      fc.property(anyUris, (uri) => {
        const result = parseForwardedPath(uri);
        if (result.type === "refused") return;
        expect(result.path).toMatch(/^\/[A-Za-z0-9\-._~!$&'()*+,=/]*$/);
        expect(decodeURIComponent(result.path)).toBe(result.path);
        expect(result.path).not.toMatch(/\/\/./);
        expect(parseForwardedPath(result.path)).toEqual(result);
      }),
      { numRuns: 5000 },
    );
  });

  test("an accepted path with a dot segment spliced in, raw or encoded, is refused", () => {
    const dotSegments = fc.constantFrom(".", "..", "%2e", "%2E%2e", ".%2e", "\uff0e\uff0e", "%ef%bc%8e");
    fc.assert(
      fc.property(uris, dotSegments, fc.nat(), (uri, dots, at) => {
        const result = parseForwardedPath(uri);
        if (result.type === "refused") return;
        const segments = result.path.split("/");
        segments.splice(1 + (at % segments.length), 0, dots);
        expect(parseForwardedPath(segments.join("/")).type).toBe("refused");
      }),
      { numRuns: 2000 },
    );
  });

  test("the query never changes the path that is matched", () => {
    fc.assert(
      fc.property(uris, fc.string({ maxLength: 30 }), (uri, query) => {
        const path = uri.split("?")[0] as string;
        expect(parseForwardedPath(`${path}?${query}`)).toEqual(parseForwardedPath(path));
      }),
      { numRuns: 2000 },
    );
  });
});
