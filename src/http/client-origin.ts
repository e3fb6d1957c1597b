import type { FastifyRequest } from "fastify";
import { type ClientOrigin, unmapped } from "../domain/client-address.js";

/**
 * Where a request to REST, MCP or the console came from: `request.ip`, which Fastify finds from the
 * socket peer and, past the peers in LATCHKEY_TRUSTED_PROXIES, the request's `X-Forwarded-For`
 * (its `trustProxy` is set from that list: http/server-settings.ts). Every use of a client address
 * (network limits, sign-in limits, logs) reads it here, so no two can disagree.
 */
export function peerOrigin(request: FastifyRequest): ClientOrigin {
  return {
    peer: request.ip === "" ? undefined : request.ip,
    forwardedFor: undefined,
    missing: "the connection has no peer address",
  };
}

/** The client's address as `peerOrigin` resolves it, for limits and logs (`::ffff:` IPv4 unmapped). */
export function requestAddress(request: FastifyRequest): string {
  return unmapped(request.ip ?? "");
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
