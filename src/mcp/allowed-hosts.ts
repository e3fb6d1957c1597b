import { LatchkeyError } from "../domain/errors.js";

/** Names a local client uses to reach the server, accepted on every deployment. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
/** Bind addresses that mean "every interface": they name no host a client would send. */
const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]"]);

/** Host names as the URL parser writes them: lower case, IPv6 in brackets. */
function normalizedHostname(name: string): string | undefined {
  try {
    return new URL(`http://${name.includes(":") && !name.startsWith("[") ? `[${name}]` : name}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The host names `/mcp` answers to: the loopback names, the address the server listens on (HOST, unless
 * it is a wildcard) and the operator's LATCHKEY_MCP_ALLOWED_HOSTS. Ports are not compared: the listening
 * port may be 0 (chosen at start) or hidden behind a proxy, and the attack below needs a foreign name.
 */
export function allowedHostnames(listenHost: string, extra: readonly string[]): Set<string> {
  const names = [...LOOPBACK_NAMES, ...(WILDCARD_BINDS.has(listenHost) ? [] : [listenHost]), ...extra];
  return new Set(names.map(normalizedHostname).filter((name): name is string => name !== undefined));
}

function refuse(message: string): LatchkeyError {
  return new LatchkeyError("host_not_allowed", message);
}

/**
 * DNS-rebinding protection for `/mcp`: a web page on a foreign name that resolves to this server's
 * address must not be able to drive the MCP endpoint from a browser. The `Host` header must name an
 * allowed host, and an `Origin` header, when a browser sent one, must too. Returns the refusal, if any.
 */
export function checkHostAndOrigin(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: ReadonlySet<string>,
): LatchkeyError | undefined {
  const hint = "Add the name to LATCHKEY_MCP_ALLOWED_HOSTS if clients reach latchkey under it.";
  if (!headers.host) return refuse("The MCP endpoint needs a Host header.");
  let host: string;
  try {
    host = new URL(`http://${headers.host}`).hostname;
  } catch {
    return refuse(`The MCP endpoint does not answer to the host ${JSON.stringify(headers.host)}.`);
  }
  if (!allowed.has(host)) return refuse(`The MCP endpoint does not answer to the host ${host}. ${hint}`);
  if (headers.origin === undefined) return undefined;
  let origin: string;
  try {
    origin = new URL(headers.origin).hostname;
  } catch {
    return refuse(`Requests from the origin ${JSON.stringify(headers.origin)} are not allowed.`);
  }
  if (!allowed.has(origin)) return refuse(`Requests from the origin ${origin} are not allowed. ${hint}`);
  return undefined;
}
