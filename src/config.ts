import { ajvFor } from "./validation/ajv.js";
import { describeIssues, type InputIssue } from "./validation/issues.js";
import { type Static, Type } from "typebox";
import { cidrProblem } from "./domain/networks.js";
import { type PasswordCost, PRODUCTION_PASSWORD_COST, TEST_PASSWORD_COST } from "./domain/passwords.js";
import { parseRedisUrl, RedisUrlProblem, type RedisTopology } from "./redis/redis-url.js";
import { withoutPassword } from "./store/database-location.js";

/** LATCHKEY_PASSWORD_COST's one value below production's: cheap hashes for test suites only. */
const INSECURE_TEST_COST = "insecure-test";

/** Every setting latchkey reads from the environment; the only place `process.env` is read. */
const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: "127.0.0.1" }),
  LATCHKEY_DATABASE_URL: Type.String({
    default: "sqlite:./data/latchkey.db",
    pattern: "^(sqlite:.|postgres(ql)?://)",
    description:
      "sqlite:<path> (default sqlite:./data/latchkey.db) or postgres://user:password@host:5432/database",
  }),
  // The shape of each topology's URL is checked by parseRedisUrl after the schema.
  LATCHKEY_REDIS_URL: Type.Optional(
    Type.String({
      pattern: "^(rediss?|redis\\+cluster|redis\\+sentinel)://",
      description: "a redis://, rediss://, redis+cluster:// or redis+sentinel:// URL",
    }),
  ),
  LATCHKEY_REDIS_REPLICAS_ACK: Type.Union([Type.Literal("0"), Type.Literal("1")], { default: "0" }),
  LATCHKEY_REDIS_PREFIX: Type.String({
    pattern: "^[A-Za-z0-9_.:-]{1,64}$",
    default: "latchkey",
    description: "1 to 64 letters, digits, '_', '.', ':' or '-'",
  }),
  LATCHKEY_RATE_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  LATCHKEY_BOOTSTRAP: Type.Union([Type.Literal("on"), Type.Literal("off"), Type.Literal("print")], {
    default: "on",
  }),
  LATCHKEY_BOOTSTRAP_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_OWNER_EMAIL: Type.Optional(
    Type.String({ pattern: "^[^\\s@]+@[^\\s@]+$", maxLength: 254, description: "an email address" }),
  ),
  LATCHKEY_PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: "^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$",
      description: "an origin such as https://latchkey.example.com (scheme, host and port, no path)",
    }),
  ),
  LATCHKEY_CONSOLE: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
  LATCHKEY_OAUTH_MAX_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 90 }),
  LATCHKEY_DATABASE_CREATE: Type.Optional(Type.Union([Type.Literal("on"), Type.Literal("off")])),
  LATCHKEY_SECRET_PEPPER: Type.Optional(Type.String({ minLength: 16 })),
  LATCHKEY_SERVER_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_DEFAULT_IMAGE_CREDITS: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 50 }),
  LATCHKEY_ROUTES: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_GROUPS: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_FORWARDED_HEADERS: Type.Union([Type.Literal("x-forwarded"), Type.Literal("x-original")], {
    default: "x-forwarded",
  }),
  // Host names, comma-separated: letters, digits, dots, hyphens, or a bracketed IPv6 address.
  LATCHKEY_MCP_ALLOWED_HOSTS: Type.Optional(
    Type.String({
      pattern:
        "^\\s*(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(\\s*,\\s*(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+))*\\s*$",
      description: "host names separated by commas (no scheme, port or path), e.g. latchkey.example.com",
    }),
  ),
  // CIDRs, comma-separated; each is checked by cidrProblem after the schema.
  LATCHKEY_TRUSTED_PROXIES: Type.Optional(Type.String({ maxLength: 10_000 })),
  LATCHKEY_LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
    { default: "info" },
  ),
  LATCHKEY_LOG_FORMAT: Type.Union([Type.Literal("json"), Type.Literal("pretty")], { default: "json" }),
  LATCHKEY_ACCESS_LOG: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
  LATCHKEY_METRICS: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
  LATCHKEY_RECORD_CACHE: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
  LATCHKEY_REQUEST_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
  LATCHKEY_SHUTDOWN_GRACE_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 10 }),
  LATCHKEY_REDIS_DEADLINE_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 1500 }),
  LATCHKEY_REDIS_OUTAGE_AFTER_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 2000 }),
  LATCHKEY_LIMITER_OUTAGE: Type.Union([Type.Literal("local"), Type.Literal("refuse")], { default: "local" }),
  LATCHKEY_SECRET_SCANNING_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "off" }),
  LATCHKEY_WEBHOOKS_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  LATCHKEY_WEBHOOKS_TIME_DIVISOR: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  LATCHKEY_LEAKED_KEYS: Type.Union([Type.Literal("disable"), Type.Literal("flag")], { default: "disable" }),
  // Never below production's 15, except the test setting, whose name says what it is.
  LATCHKEY_PASSWORD_COST: Type.String({
    pattern: `^(1[5-9]|20|${INSECURE_TEST_COST})$`,
    default: String(PRODUCTION_PASSWORD_COST),
    description: `an integer from ${PRODUCTION_PASSWORD_COST} to 20, or ${INSECURE_TEST_COST} in a test suite only`,
  }),
});

type RawConfig = Static<typeof ConfigSchema>;

export interface Config {
  /** TCP port to listen on (env PORT). */
  port: number;
  /** Interface to bind (env HOST). */
  host: string;
  /** `sqlite:<path>` or `postgres://...`. */
  databaseUrl: string;
  /** Redis for shared rate-limit state; absent means the in-memory limiter. */
  redisUrl: string | undefined;
  /** `redisUrl` read: one server, a cluster or a Sentinel-managed master (src/redis/redis-url.ts). */
  redisTopology: RedisTopology | undefined;
  /**
   * LATCHKEY_REDIS_REPLICAS_ACK=1: a request is admitted only once a replica holds its slot (`WAIT`),
   * so a master's death loses no admission (docs/several-nodes.md).
   */
  redisReplicasAck: boolean;
  /** First part of every Redis key, so that several deployments can share one Redis. */
  redisPrefix: string;
  /** Sliding-window length; 60 in production, shorter for tests and demos. */
  rateWindowSeconds: number;
  /**
   * What the first start on an empty database does: `file` creates organization `default`, its owner
   * key and a service token and writes their secrets to `bootstrapFile` (0600); `print` prints them
   * on standard error instead; `off` creates nothing.
   */
  bootstrap: "file" | "print" | "off";
  /** Where `bootstrap: "file"` writes the first credentials; default beside the SQLite database. */
  bootstrapFile: string | undefined;
  /**
   * With the first start's organization, a console user of this email is created as its owner; the
   * generated password goes where the first credentials go (LATCHKEY_OWNER_EMAIL).
   */
  ownerEmail: string | undefined;
  /** Whether the console (`/console`) is served (LATCHKEY_CONSOLE). */
  console: boolean;
  /**
   * The origin people and MCP clients use (LATCHKEY_PUBLIC_URL), e.g. behind a TLS proxy; unset: each
   * request's own origin. Names the OAuth issuer and resource, and the console's expected `Origin`.
   */
  publicUrl: string | undefined;
  /**
   * How long an MCP connection lives at most, in days from the consent, whatever its refreshes
   * (LATCHKEY_OAUTH_MAX_DAYS, default 90); then the client must ask the user again.
   */
  oauthMaxDays: number;
  /**
   * Whether a SQLite database that does not exist yet may be created: the server does unless this is
   * `false`; the CLI only when it is `true` (LATCHKEY_DATABASE_CREATE=on or `--create`).
   */
  databaseCreate: boolean | undefined;
  /** Server-side secret mixed into stored secret hashes (HMAC), when set. */
  secretPepper: string | undefined;
  /**
   * A file of key material (32+ characters) that seals the kept responses of key creates sent with an
   * `Idempotency-Key`, where there is no pepper; the same on every node (docs/keys.md).
   */
  serverKeyFile: string | undefined;
  /** Image credits per billing period of an organization whose plan sets none. */
  defaultImageCredits: number;
  /** Path of the forward-auth route table (a JSON file); absent means no routes. */
  routesFile: string | undefined;
  /** Path of the platform's own rate-limit groups (a JSON file, docs/rate-limits.md); absent: none. */
  groupsFile: string | undefined;
  /**
   * The one header pair forward-auth reads the original request from: `x-forwarded`
   * (X-Forwarded-Method/-Uri: Caddy, Traefik) or `x-original` (X-Original-Method/-URI: nginx recipes).
   */
  forwardedHeaders: "x-forwarded" | "x-original";
  /**
   * Extra host names `/mcp` accepts in `Host` and `Origin` (LATCHKEY_MCP_ALLOWED_HOSTS), besides
   * localhost, 127.0.0.1, [::1] and HOST: the names clients use to reach a server behind a proxy.
   */
  mcpAllowedHosts: string[];
  /**
   * Proxies in front of latchkey, as CIDRs (LATCHKEY_TRUSTED_PROXIES; default none): when a request's
   * socket peer is one, the client's address for keys' `allowed_cidrs` is the right-most hop of
   * `X-Forwarded-For` that is not one.
   */
  trustedProxies: readonly string[];
  logLevel: string;
  /** `json` (one JSON object per line, for log collectors) or `pretty` (for people, via pino-pretty). */
  logFormat: "json" | "pretty";
  /** Whether every request gets its access-log line at `info` (LATCHKEY_ACCESS_LOG). */
  accessLog: boolean;
  /** Whether `GET /metrics` serves Prometheus metrics (and requests are counted). */
  metrics: boolean;
  /**
   * Whether key records are cached on PostgreSQL + Redis, validated by record versions in Redis
   * (docs/caching.md); `LATCHKEY_RECORD_CACHE=off` reads them from PostgreSQL on every request.
   */
  recordCache: boolean;
  /**
   * Seconds a client has to send a request's headers and body (LATCHKEY_REQUEST_TIMEOUT_SECONDS);
   * past them it is answered `408 request_timeout` and its connection closed.
   */
  requestTimeoutSeconds: number;
  /**
   * Seconds a stopping node (SIGTERM, SIGINT) gives the requests it already received before it closes
   * every connection and exits (LATCHKEY_SHUTDOWN_GRACE_SECONDS).
   */
  shutdownGraceSeconds: number;
  /**
   * How long one rate-limit decision may keep retrying a slow Redis, under the same member, before it
   * gets the outage policy's answer (LATCHKEY_REDIS_DEADLINE_MS).
   */
  redisDeadlineMs: number;
  /**
   * How long Redis may stay silent before a node leaves it (LATCHKEY_REDIS_OUTAGE_AFTER_MS); a lost
   * connection leaves it at once.
   */
  redisOutageAfterMs: number;
  /**
   * What rate-limited requests get while Redis is away (LATCHKEY_LIMITER_OUTAGE): `local` counts on
   * each node alone, `refuse` answers `503 rate_limiter_unavailable`.
   */
  limiterOutage: "local" | "refuse";
  /**
   * A copy of GitHub's `/meta/public_keys/secret_scanning` answer (LATCHKEY_SECRET_SCANNING_KEYS);
   * `POST /v1/secret-scanning/github` exists only when it is set (docs/secret-scanning.md).
   */
  secretScanningKeysFile: string | undefined;
  /** What a reported leak does to its key (LATCHKEY_LEAKED_KEYS): `disable` it, or only `flag` it. */
  leakedKeys: "disable" | "flag";
  /** Webhooks (docs/webhooks.md): private addresses and http allowed (LATCHKEY_WEBHOOKS_ALLOW_PRIVATE). */
  webhooksAllowPrivate: boolean;
  /** How often each node looks for due webhook deliveries (LATCHKEY_WEBHOOKS_POLL_MS). */
  webhooksPollMs: number;
  /** Divides the retry schedule and the five days before a failing endpoint is disabled (tests, demos). */
  webhooksTimeDivisor: number;
  /**
   * log2 of scrypt's N for new console password hashes (LATCHKEY_PASSWORD_COST): 15 (the default) to
   * 20; `insecure-test` (2^10) only in test suites, which hash hundreds of passwords.
   */
  passwordCost: PasswordCost;
}

// Environment variables are text: the `text` rules coerce "8080" to 8080 and fill in the defaults.
const validate = ajvFor("text").compile<RawConfig>(ConfigSchema);

/** Variables whose value is never repeated in a message: it is a secret. */
const SECRET_VARIABLES = new Set(["LATCHKEY_SECRET_PEPPER"]);
/** Variables holding a URL that may carry a password: repeated without it. */
const URL_VARIABLES = new Set(["LATCHKEY_DATABASE_URL", "LATCHKEY_REDIS_URL"]);

/** "LATCHKEY_LOG_LEVEL is 'verbose'; use one of fatal, error, ...": the variable, its value, what fits. */
function configProblem(issue: InputIssue): string {
  const name = issue.path.slice(1) || "configuration";
  // Text, or a number Ajv coerced it to (PORT=99999); the environment holds nothing else.
  const value = typeof issue.value === "string" || typeof issue.value === "number" ? String(issue.value) : "";
  const given = SECRET_VARIABLES.has(name)
    ? `is ${value.length} characters long`
    : `is '${URL_VARIABLES.has(name) ? withoutPassword(value) : value}'`;
  return issue.expected ? `${name} ${given}; use ${issue.expected}` : `${name} ${given}: it ${issue.message}`;
}

/** Reads and checks the environment once; a bad value stops the process with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== "") raw[name] = value;
  }
  if (!validate(raw)) {
    const problems = describeIssues(validate.errors ?? []).map(configProblem);
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  const config = raw;
  const trustedProxies = (config.LATCHKEY_TRUSTED_PROXIES ?? "")
    .split(",")
    .map((cidr) => cidr.trim())
    .filter(Boolean);
  const badProxy = trustedProxies.map(cidrProblem).find((problem) => problem !== undefined);
  if (badProxy) {
    throw new Error(
      `Invalid configuration: LATCHKEY_TRUSTED_PROXIES: ${badProxy}; use CIDRs separated by commas`,
    );
  }
  const redisTopology = readRedisTopology(config);
  return Object.freeze({
    port: config.PORT,
    host: config.HOST,
    databaseUrl: config.LATCHKEY_DATABASE_URL,
    redisUrl: config.LATCHKEY_REDIS_URL,
    redisTopology,
    redisReplicasAck: config.LATCHKEY_REDIS_REPLICAS_ACK === "1",
    redisPrefix: config.LATCHKEY_REDIS_PREFIX,
    rateWindowSeconds: config.LATCHKEY_RATE_WINDOW_SECONDS,
    bootstrap: config.LATCHKEY_BOOTSTRAP === "on" ? "file" : config.LATCHKEY_BOOTSTRAP,
    bootstrapFile: config.LATCHKEY_BOOTSTRAP_FILE,
    ownerEmail: config.LATCHKEY_OWNER_EMAIL,
    console: config.LATCHKEY_CONSOLE === "on",
    publicUrl: config.LATCHKEY_PUBLIC_URL,
    oauthMaxDays: config.LATCHKEY_OAUTH_MAX_DAYS,
    databaseCreate:
      config.LATCHKEY_DATABASE_CREATE === undefined ? undefined : config.LATCHKEY_DATABASE_CREATE === "on",
    secretPepper: config.LATCHKEY_SECRET_PEPPER,
    serverKeyFile: config.LATCHKEY_SERVER_KEY_FILE,
    defaultImageCredits: config.LATCHKEY_DEFAULT_IMAGE_CREDITS,
    routesFile: config.LATCHKEY_ROUTES,
    groupsFile: config.LATCHKEY_GROUPS,
    forwardedHeaders: config.LATCHKEY_FORWARDED_HEADERS,
    mcpAllowedHosts: (config.LATCHKEY_MCP_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    trustedProxies,
    logLevel: config.LATCHKEY_LOG_LEVEL,
    logFormat: config.LATCHKEY_LOG_FORMAT,
    accessLog: config.LATCHKEY_ACCESS_LOG === "on",
    metrics: config.LATCHKEY_METRICS === "on",
    recordCache: config.LATCHKEY_RECORD_CACHE === "on",
    requestTimeoutSeconds: config.LATCHKEY_REQUEST_TIMEOUT_SECONDS,
    shutdownGraceSeconds: config.LATCHKEY_SHUTDOWN_GRACE_SECONDS,
    redisDeadlineMs: config.LATCHKEY_REDIS_DEADLINE_MS,
    redisOutageAfterMs: config.LATCHKEY_REDIS_OUTAGE_AFTER_MS,
    limiterOutage: config.LATCHKEY_LIMITER_OUTAGE,
    secretScanningKeysFile: config.LATCHKEY_SECRET_SCANNING_KEYS,
    leakedKeys: config.LATCHKEY_LEAKED_KEYS,
    webhooksAllowPrivate: config.LATCHKEY_WEBHOOKS_ALLOW_PRIVATE === "on",
    webhooksPollMs: config.LATCHKEY_WEBHOOKS_POLL_MS,
    webhooksTimeDivisor: config.LATCHKEY_WEBHOOKS_TIME_DIVISOR,
    passwordCost:
      config.LATCHKEY_PASSWORD_COST === INSECURE_TEST_COST
        ? TEST_PASSWORD_COST
        : Number(config.LATCHKEY_PASSWORD_COST),
  });
}

/** LATCHKEY_REDIS_URL's topology, or a one-line refusal naming the variable (never its password). */
function readRedisTopology(config: RawConfig): RedisTopology | undefined {
  const url = config.LATCHKEY_REDIS_URL;
  if (url === undefined) {
    if (config.LATCHKEY_REDIS_REPLICAS_ACK === "1") {
      throw new Error(
        "Invalid configuration: LATCHKEY_REDIS_REPLICAS_ACK=1 needs LATCHKEY_REDIS_URL (replicas acknowledge slots kept in Redis)",
      );
    }
    return undefined;
  }
  try {
    return parseRedisUrl(url);
  } catch (error) {
    if (!(error instanceof RedisUrlProblem)) throw error;
    throw new Error(`Invalid configuration: LATCHKEY_REDIS_URL '${withoutPassword(url)}': ${error.message}`);
  }
}
