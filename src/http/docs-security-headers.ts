import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The API reference at `/docs` (Swagger UI): the console's protections, loosened only where Swagger
 * UI needs it: its own scripts and styles only (no CDN, no inline script), its icons as `data:`
 * images, calls to this server only; never framed (clickjacking), no referrer, no MIME sniffing.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from its markup.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** `onRequest` of every `/docs` route (the page and its assets). */
export function setDocsSecurityHeaders(
  _request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  reply.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
  reply.header("X-Frame-Options", "DENY");
  reply.header("X-Content-Type-Options", "nosniff");
  reply.header("Referrer-Policy", "same-origin");
  done();
}
