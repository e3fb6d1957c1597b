import type { FastifyRequest } from "fastify";
import type { ClientOrigin } from "../domain/client-address.js";

/**
 * Where a request to REST or MCP came from: the socket peer, and past it (when the peer is one of
 * LATCHKEY_TRUSTED_PROXIES) the request's `X-Forwarded-For` (domain/client-address.ts).
 */
export function peerOrigin(request: FastifyRequest): ClientOrigin {
  return {
    peer: request.socket.remoteAddress,
    forwardedFor: request.headers["x-forwarded-for"],
    missing: "the connection has no peer address",
  };
}

/**
 * Where the request a gateway asks about (forward-auth) came from: the gateway's `X-Forwarded-For`,
 * whose right-most hop is the address the gateway itself saw. The gateway is the socket peer, and
 * its service token vouches for the header, so the peer's own address is never the answer.
 */
export function gatewayOrigin(request: FastifyRequest): ClientOrigin {
  return {
    peer: undefined,
    forwardedFor: request.headers["x-forwarded-for"],
    missing: "the gateway sent no X-Forwarded-For",
  };
}

/** Where the caller of a platform service came from, as the platform tells authorize (`client_ip`). */
export function platformOrigin(clientIp: string | undefined): ClientOrigin {
  return {
    peer: clientIp,
    forwardedFor: undefined,
    missing: "the platform called authorize without client_ip",
  };
}
