import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** Where people and clients reach this server: LATCHKEY_PUBLIC_URL, else this request's own origin. */
    publicOrigin: string;
  }
}

/**
 * The origin latchkey names itself by (the OAuth issuer and resource, the console's `Origin` check,
 * its Secure cookie). Behind a proxy that terminates TLS, requests arrive as plain http, so the
 * public `https://...` origin must be configured (LATCHKEY_PUBLIC_URL) rather than guessed from
 * headers a client could send itself.
 */
export function registerPublicOrigin(app: FastifyInstance, publicUrl: string | undefined): void {
  if (publicUrl?.startsWith("https://")) {
    // Served over HTTPS: browsers must never come back over plain http (a year, as usual). Every
    // answer carries it, the console's and OAuth's among them; other clients ignore it.
    app.addHook("onSend", (_request, reply, payload, done) => {
      reply.header("Strict-Transport-Security", "max-age=31536000");
      done(null, payload);
    });
  }
  // A getter, not a hook: only the console and OAuth ask, so no other request pays for working it out.
  app.decorateRequest("publicOrigin", {
    getter(this: FastifyRequest) {
      return publicUrl ?? `${this.protocol}://${this.host}`;
    },
  });
}

/** Whether the public origin is HTTPS: then the console's cookie is `__Host-` and Secure. */
export const servedOverHttps = (request: FastifyRequest): boolean =>
  request.publicOrigin.startsWith("https://");
