import type { FastifyReply } from "fastify";

/** What Fastify sets on a body its serializer produced; a body sent already serialized must say it too. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Sends a body already serialized by its route's response schema (key-response.ts,
 * authorize-decision.ts, whose serializers the routes in front of Fastify share): as a string it is not
 * serialized again, which a schema-typed reply cannot express, hence the plain FastifyReply.
 */
export function sendSerialized(reply: FastifyReply, body: string): FastifyReply {
  return reply.type(JSON_CONTENT_TYPE).send(body);
}
