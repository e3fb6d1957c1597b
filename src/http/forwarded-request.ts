import type { FastifyRequest } from "fastify";
import { invalidRequest } from "../domain/errors.js";
import { parseForwardedPath } from "../domain/forwarded-path.js";

/** Which header pair describes the original request (LATCHKEY_FORWARDED_HEADERS). */
export type ForwardedHeaders = "x-forwarded" | "x-original";

/** The original request, as the gateway describes it. */
export interface OriginalRequest {
  /** Upper-case method. */
  method: string;
  /** The URI's path, decoded once and checked (domain/forwarded-path.ts); the query is not part of it. */
  path: string;
}

const PAIRS: Record<ForwardedHeaders, { method: string; uri: string; names: string }> = {
  "x-forwarded": {
    method: "x-forwarded-method",
    uri: "x-forwarded-uri",
    names: "X-Forwarded-Method/X-Forwarded-Uri",
  },
  "x-original": {
    method: "x-original-method",
    uri: "x-original-uri",
    names: "X-Original-Method/X-Original-URI",
  },
};

/**
 * Headers that must appear at most once. Node joins repeated unknown headers with ", " (two
 * `X-Forwarded-Uri` would be matched as one odd path, two `X-Forwarded-For` one list of hops, the
 * caller's own among them) and keeps the first `Authorization`, which the upstream might not: a
 * gateway that appends instead of replacing is refused, not guessed at.
 */
const SINGLE = [
  "x-forwarded-method",
  "x-forwarded-uri",
  "x-original-method",
  "x-original-uri",
  "authorization",
  "x-latchkey-service-token",
  "x-latchkey-refusal-status",
  "x-forwarded-for",
];

const METHOD = /^[A-Za-z]{1,20}$/;

function repeatedHeader(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (!SINGLE.includes(name)) continue;
    if (seen.has(name)) return raw[i];
    seen.add(name);
  }
  return undefined;
}

/**
 * Reads the original method and URI from the one pair `source` names. A request that also carries
 * the other pair is refused: behind a gateway that writes only one pair, the other one came from the
 * caller, who would otherwise choose the path that is checked.
 */
export function originalRequest(request: FastifyRequest, source: ForwardedHeaders): OriginalRequest {
  const repeated = repeatedHeader(request);
  if (repeated !== undefined) throw invalidRequest(`The request repeats the ${repeated} header.`);
  const pair = PAIRS[source];
  const other = PAIRS[source === "x-forwarded" ? "x-original" : "x-forwarded"];
  if (request.headers[other.method] !== undefined || request.headers[other.uri] !== undefined) {
    throw invalidRequest(
      `This latchkey reads the original request from ${pair.names} (LATCHKEY_FORWARDED_HEADERS=${source}), ` +
        `and the request also carries ${other.names}: the gateway must send one pair only.`,
    );
  }
  const method = request.headers[pair.method] ?? request.method;
  if (typeof method !== "string" || !METHOD.test(method)) {
    throw invalidRequest(`The original method (${pair.names.split("/")[0]}) is not an HTTP method.`);
  }
  const uri = request.headers[pair.uri];
  if (typeof uri !== "string" || uri === "") {
    throw invalidRequest(`Forward-auth needs the original URI in ${pair.names.split("/")[1]}.`);
  }
  const path = parseForwardedPath(uri);
  if (path.type === "refused") {
    throw invalidRequest(`The original URI's path is refused: ${path.reason}.`);
  }
  return { method: method.toUpperCase(), path: path.path };
}
