import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { preParsingHookHandler } from "fastify";

/**
 * Bodies read in front of Fastify (fast-authorize.ts) for requests then handed to Fastify: the request's
 * stream is spent, so the route's `preParsing` hook gives Fastify's parser the same bytes instead.
 */
export interface BodyReplay {
  keep(request: IncomingMessage, body: Buffer): void;
  /** The body kept for this request, once; undefined when none was. */
  take(request: IncomingMessage): Buffer | undefined;
  /** A `preParsing` hook for the routes such requests are handed to. */
  preParsing: preParsingHookHandler;
}

export function bodyReplay(): BodyReplay {
  // Weak: a request Fastify never routes (it answers 503 while closing) leaves nothing behind.
  const kept = new WeakMap<IncomingMessage, Buffer>();
  const take = (request: IncomingMessage) => {
    const body = kept.get(request);
    if (body) kept.delete(request);
    return body;
  };
  return {
    keep(request, body) {
      kept.set(request, body);
    },
    take,
    preParsing(request, _reply, payload, done) {
      const body = take(request.raw);
      done(null, body ? Readable.from([body]) : payload);
    },
  };
}
