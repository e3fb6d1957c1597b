import ipaddr from "ipaddr.js";

/** URLs longer than this are refused (a validation error). */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/**
 * Whether latchkey may send to this address: only public unicast ones. Loopback, private, link-local
 * (where cloud metadata services live, 169.254.169.254), carrier-grade NAT, unique-local IPv6, multicast,
 * reserved and unspecified addresses are refused, and an IPv4 address mapped into IPv6 is judged as the
 * IPv4 address it is. ipaddr.js names the ranges (RFC 6890's special-purpose registry).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === "unicast";
}

/** Why a webhook URL cannot be used before any name is resolved, or null when it may. */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "The webhook URL is not a valid absolute URL.";
  }
  const schemes = allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(parsed.protocol)) {
    return allowPrivate ? "A webhook URL must use https or http." : "A webhook URL must use https.";
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return "A webhook URL must not carry credentials.";
  }
  return null;
}

/** The host of a URL as a name to resolve or an address (IPv6 without its brackets). */
export function hostOf(url: string): string {
  const host = new URL(url).hostname;
  return host.startsWith("[") ? host.slice(1, -1) : host;
}
