import { type BlockList, isIP } from "node:net";

/**
 * Where a request came from, as an adapter knows it. Resolved to one address only for keys limited to
 * networks (`allowed_cidrs`), so other requests pay for nothing but carrying these strings.
 */
export interface ClientOrigin {
  /**
   * The address that sent the request: the socket peer (REST, MCP) or the platform's `client_ip`
   * (authorize). Undefined on forward-auth, where the gateway's `X-Forwarded-For` is the whole story.
   */
  peer: string | undefined;
  /** `X-Forwarded-For` as received (hops separated by commas), read only past trusted hops. */
  forwardedFor: string | string[] | undefined;
  /** Why no address can be known, for the refusal (e.g. "authorize was called without client_ip"). */
  missing: string;
}

/**
 * The client's address: the right-most hop that is not a trusted proxy, walking from the peer back
 * through `X-Forwarded-For`. A peer outside `trusted` is the answer itself, and its header is ignored (a
 * client could write anything there). When every hop is trusted, the left-most one is the answer. A hop
 * that is not an IP address ends the walk: it is returned as seen, and no network contains it.
 */
export function clientAddress(origin: ClientOrigin, trusted: BlockList | undefined): string | undefined {
  const peer = origin.peer === undefined ? undefined : unmapped(origin.peer);
  if (peer !== undefined && !isTrusted(peer, trusted)) return peer;
  const header = Array.isArray(origin.forwardedFor) ? origin.forwardedFor.join(",") : origin.forwardedFor;
  const hops = header === undefined ? [] : header.split(",").map((hop) => hop.trim());
  let address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (hop === "") continue;
    address = unmapped(hop);
    if (!isTrusted(address, trusted)) return address;
  }
  return address;
}

/**
 * Whether a hop is one of `trusted`: the same test `clientAddress` makes, for Fastify's own
 * `trustProxy`, so that `request.ip` is the address `clientAddress` finds (up to `::ffff:`).
 */
export function trustedHop(trusted: BlockList): (address: string) => boolean {
  return (address) => isTrusted(unmapped(address), trusted);
}

function isTrusted(address: string, trusted: BlockList | undefined): boolean {
  const family = isIP(address);
  return trusted !== undefined && family !== 0 && trusted.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** `::ffff:203.0.113.7` (a dual-stack socket's view of an IPv4 client) as `203.0.113.7`. */
export function unmapped(address: string): string {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4 !== address && isIP(v4) === 4 ? v4 : address;
}
