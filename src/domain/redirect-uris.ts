/** At most this many redirect URIs per client, each at most this long (docs/mcp-oauth.md). */
export const REDIRECT_URI_LIMITS = { count: 10, length: 2000 } as const;

/** Loopback names a native client may redirect to over plain http (RFC 8252, section 7.3). */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/**
 * A DNS name as the URL parser writes it: lower-case labels of letters, digits, inner hyphens and
 * underscores (which browsers accept), up to 63 characters each.
 */
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/**
 * Whether a URL's host is a host name or an IP address, nothing else: the WHATWG parser lets through
 * characters such as `;`, `'` or `,` in a host, and the consent page names the redirect's origin in
 * its Content-Security-Policy, where those would start a directive of the client's choosing.
 */
export function isPlainHost(hostname: string): boolean {
  return DNS_NAME.test(hostname) || IPV4.test(hostname) || IPV6.test(hostname);
}

/**
 * Why a client may not register `uri` as a redirect URI, or undefined when it may: https to a host
 * name or address, or http on the loopback (native apps); no fragment (RFC 6749, section 3.1.2), no
 * user name or password, at most 2,000 characters.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > REDIRECT_URI_LIMITS.length) {
    return `is longer than ${REDIRECT_URI_LIMITS.length} characters`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not a URL";
  }
  if (uri.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "has a user name or password";
  if (!isPlainHost(url.hostname)) return "has a host that is not a host name or an IP address";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.includes(url.hostname)) return undefined;
  return "is not https, or http on localhost, 127.0.0.1 or [::1]";
}
