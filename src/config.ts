import { Ajv } from "ajv";
import { type Static, Type } from "typebox";

/** Every setting latchkey reads from the environment; the only place `process.env` is read. */
const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: "127.0.0.1" }),
  LATCHKEY_DATABASE_URL: Type.String({ default: "sqlite:./data/latchkey.db" }),
  LATCHKEY_REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://" })),
  LATCHKEY_REDIS_PREFIX: Type.String({ pattern: "^[A-Za-z0-9_.:-]{1,64}$", default: "latchkey" }),
  LATCHKEY_RATE_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  LATCHKEY_BOOTSTRAP: Type.Union([Type.Literal("on"), Type.Literal("off"), Type.Literal("print")], {
    default: "on",
  }),
  LATCHKEY_BOOTSTRAP_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LATCHKEY_DATABASE_CREATE: Type.Optional(Type.Union([Type.Literal("on"), Type.Literal("off")])),
  LATCHKEY_SECRET_PEPPER: Type.Optional(Type.String({ minLength: 16 })),
  LATCHKEY_DEFAULT_IMAGE_CREDITS: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 50 }),
  LATCHKEY_ROUTES: Type.Optional(Type.String({ minLength: 1 })),
  // Host names, comma-separated: letters, digits, dots, hyphens, or a bracketed IPv6 address.
  LATCHKEY_MCP_ALLOWED_HOSTS: Type.Optional(
    Type.String({
      pattern:
        "^\\s*(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(\\s*,\\s*(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+))*\\s*$",
    }),
  ),
  LATCHKEY_LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
    { default: "info" },
  ),
  LATCHKEY_LOG_FORMAT: Type.Union([Type.Literal("json"), Type.Literal("pretty")], { default: "json" }),
  LATCHKEY_METRICS: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
  LATCHKEY_RECORD_CACHE: Type.Union([Type.Literal("on"), Type.Literal("off")], { default: "on" }),
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
   * Whether a SQLite database that does not exist yet may be created: the server does unless this is
   * `false`; the CLI only when it is `true` (LATCHKEY_DATABASE_CREATE=on or `--create`).
   */
  databaseCreate: boolean | undefined;
  /** Server-side secret mixed into stored secret hashes (HMAC), when set. */
  secretPepper: string | undefined;
  /** Image credits per billing period of an organization whose plan sets none. */
  defaultImageCredits: number;
  /** Path of the forward-auth route table (a JSON file); absent means no routes. */
  routesFile: string | undefined;
  /**
   * Extra host names `/mcp` accepts in `Host` and `Origin` (LATCHKEY_MCP_ALLOWED_HOSTS), besides
   * localhost, 127.0.0.1, [::1] and HOST: the names clients use to reach a server behind a proxy.
   */
  mcpAllowedHosts: string[];
  logLevel: string;
  /** `json` (one JSON object per line, for log collectors) or `pretty` (for people, via pino-pretty). */
  logFormat: "json" | "pretty";
  /** Whether `GET /metrics` serves Prometheus metrics (and requests are counted). */
  metrics: boolean;
  /**
   * Whether key records are cached on PostgreSQL + Redis, validated by record versions in Redis
   * (docs/caching.md); `LATCHKEY_RECORD_CACHE=off` reads them from PostgreSQL on every request.
   */
  recordCache: boolean;
}

const validate = new Ajv({
  coerceTypes: true,
  useDefaults: true,
  allErrors: true,
  strict: false,
}).compile<RawConfig>(ConfigSchema);

/** Reads and checks the environment once; a bad value stops the process with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== "") raw[name] = value;
  }
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map(
      (e) => `${e.instancePath.slice(1) || "config"} ${e.message}`,
    );
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  const config = raw as RawConfig;
  return Object.freeze({
    port: config.PORT,
    host: config.HOST,
    databaseUrl: config.LATCHKEY_DATABASE_URL,
    redisUrl: config.LATCHKEY_REDIS_URL,
    redisPrefix: config.LATCHKEY_REDIS_PREFIX,
    rateWindowSeconds: config.LATCHKEY_RATE_WINDOW_SECONDS,
    bootstrap: config.LATCHKEY_BOOTSTRAP === "on" ? "file" : config.LATCHKEY_BOOTSTRAP,
    bootstrapFile: config.LATCHKEY_BOOTSTRAP_FILE,
    databaseCreate:
      config.LATCHKEY_DATABASE_CREATE === undefined ? undefined : config.LATCHKEY_DATABASE_CREATE === "on",
    secretPepper: config.LATCHKEY_SECRET_PEPPER,
    defaultImageCredits: config.LATCHKEY_DEFAULT_IMAGE_CREDITS,
    routesFile: config.LATCHKEY_ROUTES,
    mcpAllowedHosts: (config.LATCHKEY_MCP_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    logLevel: config.LATCHKEY_LOG_LEVEL,
    logFormat: config.LATCHKEY_LOG_FORMAT,
    metrics: config.LATCHKEY_METRICS === "on",
    recordCache: config.LATCHKEY_RECORD_CACHE === "on",
  });
}
