import type { FastifyReply } from "fastify";

/**
 * A JSON body ends with a newline, as curl users expect: without one, the shell prompt (or the next
 * command's output) runs on at the end of the body. Every serializer's output passes through here.
 */
export function endJsonLine(reply: FastifyReply, payload: unknown): unknown {
  if (typeof payload !== "string" || payload.endsWith("\n")) return payload;
  const type = reply.getHeader("content-type");
  return typeof type === "string" && type.startsWith("application/json") ? `${payload}\n` : payload;
}
