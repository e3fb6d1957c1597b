import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { ERROR_STATUS, type ErrorCode, LatchkeyError, type ValidationIssue } from "../domain/errors.js";
import { asDatabaseError } from "../store/database-errors.js";
import { WWW_AUTHENTICATE } from "./decision-headers.js";
import type { ErrorBody } from "./schemas.js";

const STATUS_PHRASES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
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

type AjvIssue = NonNullable<FastifyError["validation"]>[number];

function describeIssue(issue: AjvIssue, part: string | undefined): ValidationIssue {
  const prefix = part === undefined || part === "body" ? "" : `/${part === "querystring" ? "query" : part}`;
  const params = issue.params as Record<string, unknown>;
  if (issue.keyword === "additionalProperties") {
    const member = String(params.additionalProperty);
    const hint = member === "enabled" ? ' (the request field is "disabled", its inverse)' : "";
    return { path: `${prefix}${issue.instancePath}/${member}`, message: `is not a known field${hint}` };
  }
  if (issue.keyword === "required") {
    return {
      path: `${prefix}${issue.instancePath}/${String(params.missingProperty)}`,
      message: "is required",
    };
  }
  if (issue.keyword === "type" && issue.instancePath === "" && part === "body") {
    return { path: "/", message: "must be a JSON object: this request needs a body" };
  }
  if (issue.keyword === "type" && Array.isArray(params.type)) {
    return { path: `${prefix}${issue.instancePath}` || "/", message: `must be ${params.type.join(" or ")}` };
  }
  return { path: `${prefix}${issue.instancePath}` || "/", message: issue.message ?? "is invalid" };
}

function toLatchkeyError(error: FastifyError): LatchkeyError {
  if (error instanceof LatchkeyError) return error;
  const code = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (error.validation) {
    const issues = error.validation.map((issue) => describeIssue(issue, error.validationContext));
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
    return new LatchkeyError("invalid_request", `Invalid request: ${summary}.`, { validationErrors: issues });
  }
  if (code) return new LatchkeyError(code, error.message);
  // Queries that skip Kysely (SQLite's credit batches) fail with better-sqlite3's own error. Only those:
  // a socket error here is the client's (an aborted body), not the database's.
  if (error.code?.startsWith("SQLITE_")) {
    const database = asDatabaseError(error);
    if (database instanceof LatchkeyError) return database;
  }
  return new LatchkeyError("internal", "Internal server error.");
}

/** The documented error body (DESIGN.md section 4); authorize embeds it in its decisions too. */
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const rendered = toLatchkeyError(error);
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
