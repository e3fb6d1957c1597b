import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorObject } from "ajv";
import { ERROR_STATUS, type ErrorCode, LatchkeyError } from "../domain/errors.js";
import { invalidRequestFromSchema } from "../validation/issues.js";
import { payloadTooLarge, unsupportedMediaType } from "./body-errors.js";
import { asDatabaseError } from "../store/database-errors.js";
import { WWW_AUTHENTICATE } from "./decision-headers.js";
import type { ErrorBody } from "./error-body.js";
import { premiseRefusal } from "./service-token-guard.js";

const STATUS_PHRASES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Fastify's own failures that are the client's fault, by Fastify error code. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_VALIDATION: "invalid_request",
};

export function toLatchkeyError(error: FastifyError, request: FastifyRequest): LatchkeyError {
  if (error instanceof LatchkeyError) return error;
  const code = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (code === "payload_too_large") return payloadTooLarge();
  if (code === "unsupported_media_type") return unsupportedMediaType(request.headers["content-type"]);
  // Fastify hands on Ajv's own errors (src/validation/ajv.ts), which carry what the translator needs.
  if (error.validation)
    return invalidRequestFromSchema(error.validation as ErrorObject[], error.validationContext);
  if (code) return new LatchkeyError(code, error.message);
  // Queries that skip Kysely (SQLite's credit batches) fail with better-sqlite3's own error. Only those:
  // a socket error here is the client's (an aborted body), not the database's.
  if (error.code?.startsWith("SQLITE_")) {
    const database = asDatabaseError(error);
    if (database instanceof LatchkeyError) return database;
  }
  return new LatchkeyError("internal", "Internal server error.");
}

/** The documented error body (docs/troubleshooting.md); authorize embeds it in its decisions too. */
export function errorBody(error: LatchkeyError): ErrorBody {
  const statusCode = ERROR_STATUS[error.code];
  return {
    statusCode,
    error:
      error.code === "plan_limit_exceeded" ? "Plan limit exceeded" : (STATUS_PHRASES[statusCode] ?? "Error"),
    message: error.message,
    code: error.code,
    ...(error.validationErrors ? { validation_errors: error.validationErrors } : {}),
  };
}

/** Renders every error in the documented shape; nothing else builds error bodies. */
export function sendError(reply: FastifyReply, error: LatchkeyError): FastifyReply {
  if (error.code === "unauthorized") reply.header("WWW-Authenticate", WWW_AUTHENTICATE);
  if (error.retryAfterSeconds !== undefined) reply.header("Retry-After", String(error.retryAfterSeconds));
  return reply.code(ERROR_STATUS[error.code]).send(errorBody(error));
}

/**
 * True when reading the request failed because its connection ended (the client hung up mid-body, or
 * the request timed out): Node then reports the body `aborted`, with code ECONNRESET.
 */
function clientWentAway(error: FastifyError): boolean {
  return error.code === "ECONNRESET";
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    // A revoked service token's 401 comes before any other error of its request.
    const refusal = await premiseRefusal(request);
    if (refusal) return sendError(reply, refusal);
    if (clientWentAway(error)) {
      // Not latchkey's failure: a client that hangs up or times out mid-body is part of normal traffic.
      request.log.info({ err_message: error.message }, "client went away before the request was complete");
      return sendError(
        reply,
        new LatchkeyError("invalid_request", "The connection closed before the request was complete."),
      );
    }
    const rendered = toLatchkeyError(error, request);
    if (rendered.code === "internal") request.log.error({ err: error }, "unhandled error");
    return sendError(reply, rendered);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new LatchkeyError("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`),
    ),
  );
}
