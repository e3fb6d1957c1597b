import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * The OAuth issuer of `/mcp` (and with `/mcp` its resource): LATCHKEY_PUBLIC_URL, else the address
     * the server listens on. Never the `Host` header: a client could send any, and with it name another
     * authorization server in the metadata other clients read.
     */
    oauthIssuer: string;
  }
}

/** Bind addresses that mean "every interface": they name no host, so clients are told localhost. */
const WILDCARD_BINDS = new Set(["0.0.0.0", "::"]);

/** `http://<host>:<port>` for a bound address, IPv6 in brackets. */
function listenOrigin(address: string, port: number): string {
  const host = WILDCARD_BINDS.has(address) ? "localhost" : address.includes(":") ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/**
 * The issuer without LATCHKEY_PUBLIC_URL is the listening socket's address (the configured HOST and
 * PORT, or the port chosen at start for PORT=0); before the server listens (tests that inject), the
 * configured ones. The start warns that clients reaching latchkey by another name need the setting.
 */
export function registerOauthIssuer(
  app: FastifyInstance,
  settings: { publicUrl: string | undefined; host: string; port: number },
): void {
  const { publicUrl, host, port } = settings;
  app.decorateRequest("oauthIssuer", {
    getter(this: FastifyRequest) {
      if (publicUrl) return publicUrl;
      const bound = this.server.server.address();
      return bound && typeof bound === "object"
        ? listenOrigin(bound.address, bound.port)
        : listenOrigin(host, port);
    },
  });
}

/** Why a deployment without LATCHKEY_PUBLIC_URL should set it, for the start's warning. */
export const ISSUER_WARNING =
  "LATCHKEY_PUBLIC_URL is not set: the OAuth issuer of /mcp is this server's listen address, which MCP " +
  "clients reaching it under another name (a proxy, a DNS name) cannot use. Set it to the origin clients use.";
