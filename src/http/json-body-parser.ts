import type { FastifyInstance } from "fastify";

/**
 * Fastify's JSON parser (with its prototype-poisoning protection), except that an empty body counts as
 * no body: a DELETE sent with `Content-Type: application/json` by a generic client is not an error, and
 * a POST without a body is reported by the schema as a missing body rather than as unparsable JSON.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
