import type { FastifyReply } from "fastify";

/**
 * Every console response: scripts and styles only from latchkey itself (no inline script, no CDN),
 * never framed (clickjacking), no referrer leaking key ids, nothing kept by shared caches.
 */
const policy = (formAction: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    `form-action ${formAction}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
const CONTENT_SECURITY_POLICY = policy("'self'");

/**
 * The consent page's form is answered with a redirect to the client's registered URI, and browsers
 * hold form redirects to `form-action` too: that page allows this one origin besides latchkey.
 */
export function allowFormRedirectTo(reply: FastifyReply, origin: string): void {
  reply.header("Content-Security-Policy", policy(`'self' ${origin}`));
}

export function setConsoleSecurityHeaders(reply: FastifyReply): void {
  reply.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  reply.header("X-Frame-Options", "DENY");
  reply.header("X-Content-Type-Options", "nosniff");
  reply.header("Referrer-Policy", "same-origin");
}
