import type { FastifyReply, FastifyRequest } from "fastify";
import { servedOverHttps } from "../http/public-origin.js";
import { SESSION_IDLE_MS } from "../services/console-sessions.js";

/**
 * The session cookie: `__Host-latchkey_session` when the console's public origin is HTTPS (Secure, the whole site, no Domain, so no
 * sibling host can set or read it), `latchkey_session` on plain-http localhost, where browsers refuse
 * Secure cookies. Always HttpOnly (no script reads it) and SameSite=Lax (not sent on cross-site posts).
 */
export function sessionCookieName(request: FastifyRequest): string {
  return servedOverHttps(request) ? "__Host-latchkey_session" : "latchkey_session";
}

/** The session token the browser sent, as parsed by @fastify/cookie (registered in plugin.ts). */
export function sessionToken(request: FastifyRequest): string | undefined {
  return request.cookies[sessionCookieName(request)];
}

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = servedOverHttps(request) ? "; Secure" : "";
  return `${sessionCookieName(request)}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header("Set-Cookie", cookie(request, token, SESSION_IDLE_MS / 1000));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header("Set-Cookie", cookie(request, "", 0));
}
