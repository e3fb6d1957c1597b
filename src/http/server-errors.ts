import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import { errorBody, sendError } from "./error-handler.js";

/** The largest request line and headers Node reads (its default `maxHeaderSize`), in bytes. */
export const MAX_HEADER_BYTES = 16 * 1024;

export function requestTimeout(seconds: number): LatchkeyError {
  return new LatchkeyError(
    "request_timeout",
    `The request (headers and body) was not received within ${seconds} second${seconds === 1 ? "" : "s"}; ` +
      "the connection is closed.",
  );
}

export function headersTooLarge(): LatchkeyError {
  return new LatchkeyError(
    "headers_too_large",
    `The request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KiB.`,
  );
}

export function uriTooLong(): LatchkeyError {
  return new LatchkeyError("uri_too_long", "A segment of the request's path is too long to be an id.");
}

export function shuttingDown(): LatchkeyError {
  return new LatchkeyError("shutting_down", "This node is shutting down; retry the request on another node.");
}

/** What Node's HTTP parser reports about a request it cannot read (llhttp's `HPE_*` codes). */
interface ParserError extends Error {
  code?: string;
  /** llhttp's explanation, e.g. "Invalid character in chunk size"; never the request's bytes. */
  reason?: string;
}

/** The error a request Node refused before any route saw it is answered with. */
function clientErrorOf(error: ParserError, timeoutSeconds: number): LatchkeyError {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return requestTimeout(timeoutSeconds);
  if (error.code === "HPE_HEADER_OVERFLOW") return headersTooLarge();
  const reason = error.reason ? `: ${error.reason.replace(/\.$/, "")}` : "";
  return new LatchkeyError("invalid_request", `The request is not valid HTTP/1.1${reason}.`);
}

/** A complete HTTP/1.1 response carrying `error` in the documented body, closing the connection. */
function rawResponse(error: LatchkeyError): string {
  const body = JSON.stringify(errorBody(error));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Error"}\r\n` +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Cache-Control: no-store\r\n" +
    "Connection: close\r\n\r\n" +
    body
  );
}

/** How long a refused connection may take to read its answer before it is closed all the same. */
const FLUSH_WAIT_MS = 1_000;

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (bad chunked framing, bad or doubled
 * Content-Length, headers over the limit) and requests not received in time, answered in the documented
 * error body, after which the connection is closed. A response already begun is only cut.
 */
export function clientErrorHandler(
  timeoutSeconds: number,
): (this: { log: FastifyBaseLogger }, error: ParserError, socket: Socket) => void {
  return function answerClientError(error, socket) {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    const refused = clientErrorOf(error, timeoutSeconds);
    this.log.info({ code: refused.code, parser_code: error.code }, "request refused before routing");
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    socket.write(rawResponse(refused), () => socket.destroy());
    setTimeout(() => socket.destroy(), FLUSH_WAIT_MS).unref();
  };
}

/**
 * Fastify's `frameworkErrors`: the router's refusals (a bad `%` escape in the path, a path segment over
 * the router's length limit), in the documented error body.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    sendError(reply, uriTooLong());
  } else if (error.code === "FST_ERR_BAD_URL") {
    sendError(
      reply,
      new LatchkeyError("invalid_request", "The request's path is not valid percent-encoding."),
    );
  } else {
    request.log.error({ err: error }, "unhandled error");
    sendError(reply, new LatchkeyError("internal", "Internal server error."));
  }
}
