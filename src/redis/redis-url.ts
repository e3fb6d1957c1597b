/** One host and port of a cluster's seed list or a Sentinel set. */
export interface HostPort {
  host: string;
  port: number;
}

/** Credentials for the Redis servers that hold data (never the sentinels). */
export interface RedisCredentials {
  username?: string;
  password?: string;
}

/**
 * Where latchkey's Redis state lives (LATCHKEY_REDIS_URL), by topology: one server (`redis://`,
 * `rediss://`), a Redis Cluster found through a seed list (`redis+cluster://h1:p1,h2:p2`), or a master
 * found through Sentinel (`redis+sentinel://h1:p1,h2:p2/<master name>`); docs/several-nodes.md.
 */
export type RedisTopology =
  | { kind: "single"; url: string }
  | ({ kind: "cluster"; seeds: HostPort[] } & RedisCredentials)
  | ({ kind: "sentinel"; sentinels: HostPort[]; masterName: string } & RedisCredentials);

/** The topology's name as /readyz, the metrics and the start log spell it. */
export type RedisTopologyKind = RedisTopology["kind"];

const DEFAULT_PORT = { cluster: 6379, sentinel: 26379 } as const;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
const MASTER_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A LATCHKEY_REDIS_URL that cannot be used; the message says what is wrong without the URL's password. */
export class RedisUrlProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisUrlProblem";
  }
}

function decodeCredential(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RedisUrlProblem("its user name or password is not correctly percent-encoded");
  }
}

/** `user:password@` before the hosts, as in a `redis://` URL; an empty user is none. */
function credentialsOf(userInfo: string | undefined): RedisCredentials {
  if (userInfo === undefined) return {};
  const colon = userInfo.indexOf(":");
  const username = decodeCredential(colon < 0 ? userInfo : userInfo.slice(0, colon));
  const password = colon < 0 ? undefined : decodeCredential(userInfo.slice(colon + 1));
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

function hostPort(text: string, defaultPort: number, what: string): HostPort {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1] ?? "";
  if (!HOST.test(host)) {
    throw new RedisUrlProblem(
      `'${text}' is not a host:port ${what} (a host name or address, then ':' and a port)`,
    );
  }
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) throw new RedisUrlProblem(`'${text}' has a port outside 1..65535`);
  return { host: host.replace(/^\[(.*)\]$/, "$1"), port };
}

function hostList(text: string, defaultPort: number, what: string): HostPort[] {
  if (text.trim() === "") throw new RedisUrlProblem(`it names no ${what}: list them as host:port,host:port`);
  return text.split(",").map((entry) => hostPort(entry.trim(), defaultPort, what));
}

/**
 * Reads LATCHKEY_REDIS_URL. Cluster and Sentinel URLs list their hosts separated by commas, which
 * `new URL` does not accept, so they are read here; `redis://` and `rediss://` go to ioredis as they are.
 */
export function parseRedisUrl(url: string): RedisTopology {
  const scheme = /^([a-z+]+):\/\//.exec(url)?.[1];
  if (scheme === "redis" || scheme === "rediss") {
    try {
      new URL(url);
    } catch {
      throw new RedisUrlProblem("it is not a valid URL");
    }
    return { kind: "single", url };
  }
  if (scheme !== "redis+cluster" && scheme !== "redis+sentinel") {
    throw new RedisUrlProblem(
      "use redis://host:port, rediss://host:port, redis+cluster://host:port,host:port or redis+sentinel://host:port,host:port/<master name>",
    );
  }
  const rest = url.slice(scheme.length + 3);
  const at = rest.lastIndexOf("@");
  const credentials = credentialsOf(at < 0 ? undefined : rest.slice(0, at));
  const afterCredentials = at < 0 ? rest : rest.slice(at + 1);
  if (/[?#]/.test(afterCredentials))
    throw new RedisUrlProblem("it has a query or fragment, which latchkey does not read");
  const slash = afterCredentials.indexOf("/");
  const hosts = slash < 0 ? afterCredentials : afterCredentials.slice(0, slash);
  const path = slash < 0 ? "" : afterCredentials.slice(slash + 1);
  if (scheme === "redis+cluster") {
    if (path !== "")
      throw new RedisUrlProblem("a cluster URL has no path (a cluster has no database numbers)");
    return { kind: "cluster", seeds: hostList(hosts, DEFAULT_PORT.cluster, "seed"), ...credentials };
  }
  const sentinels = hostList(hosts, DEFAULT_PORT.sentinel, "sentinel");
  if (!MASTER_NAME.test(path)) {
    throw new RedisUrlProblem(
      "a sentinel URL ends with /<master name> (the name the sentinels monitor, letters, digits, '_', '.' or '-')",
    );
  }
  return { kind: "sentinel", sentinels, masterName: path, ...credentials };
}

const listed = (hosts: HostPort[]) =>
  hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(", ");

/** "Redis cluster (seeds 10.0.0.1:6379, ...)": what the start log says, never a password. */
export function describeTopology(topology: RedisTopology): string {
  switch (topology.kind) {
    case "single":
      return `Redis ${withoutCredentials(topology.url)}`;
    case "cluster":
      return `Redis cluster (seeds ${listed(topology.seeds)})`;
    case "sentinel":
      return `Redis Sentinel master '${topology.masterName}' (sentinels ${listed(topology.sentinels)})`;
  }
}

/** A `redis://` URL's scheme, host and port: where a user name and password would be, never written. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}
