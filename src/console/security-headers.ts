import type { FastifyReply } from "fastify";

/**
 * Every console response: scripts and styles only from latchkey itself (no inline script, no CDN),
 * never framed (clickjacking), no referrer leaking key ids, nothing kept by shared caches.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function setConsoleSecurityHeaders(reply: FastifyReply): void {
  reply.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  reply.header("X-Frame-Options", "DENY");
  reply.header("X-Content-Type-Options", "nosniff");
  reply.header("Referrer-Policy", "same-origin");
}
