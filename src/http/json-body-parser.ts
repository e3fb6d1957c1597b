import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidRequest } from "../domain/errors.js";
import { findDangerousMember } from "../domain/text-rules.js";

/** Refuses bytes that are not UTF-8 rather than replacing them with U+FFFD, which would be stored. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * JSON bodies, refusing every member named `__proto__`, `constructor` or `prototype` (stricter than
 * Fastify's prototype-poisoning protection, and naming the member), where an empty body counts as
 * no body: a DELETE sent with `Content-Type: application/json` by a generic client is not an error, and
 * a POST without a body is reported by the schema as a missing body rather than as unparsable JSON. A
 * body that is not valid UTF-8 is refused with 400.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, jsonBodyParser(app));
}

/** The parser itself, for a route that must see the raw bytes first (a signed body). */
export function jsonBodyParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser("error", "error");
  return (
    request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(invalidRequest("Invalid request: the body is not valid UTF-8."), undefined);
      return;
    }
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Fastify's parser words the syntax error (with its position) as every JSON route reports it.
      void parseJson(request, text, done);
      return;
    }
    const member = findDangerousMember(value);
    if (member) {
      done(invalidRequest(`Invalid request: ${member.path} ${member.message}.`, member.path), undefined);
      return;
    }
    done(null, value);
  };
}
