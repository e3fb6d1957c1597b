import { createHash, createHmac } from "node:crypto";
import { expect, test } from "vitest";
import { loadConfig } from "../src/config.js";
import { ownerApp } from "./helpers/build-test-app.js";

test("defaults match docs/configuration.md: 127.0.0.1:8080, SQLite in ./data, 60 s window, bootstrap on", () => {
  expect(loadConfig({})).toMatchObject({
    port: 8080,
    host: "127.0.0.1",
    databaseUrl: "sqlite:./data/latchkey.db",
    redisUrl: undefined,
    rateWindowSeconds: 60,
    bootstrap: "file",
    bootstrapFile: undefined,
    databaseCreate: undefined,
    logFormat: "json",
    metrics: true,
    recordCache: true,
    requestTimeoutSeconds: 30,
    shutdownGraceSeconds: 10,
  });
});

test("environment values are read and converted", () => {
  const config = loadConfig({
    PORT: "9000",
    LATCHKEY_RATE_WINDOW_SECONDS: "5",
    LATCHKEY_BOOTSTRAP: "off",
    LATCHKEY_LOG_FORMAT: "pretty",
    LATCHKEY_METRICS: "off",
    LATCHKEY_RECORD_CACHE: "off",
  });
  expect(config).toMatchObject({
    port: 9000,
    rateWindowSeconds: 5,
    bootstrap: "off",
    logFormat: "pretty",
    metrics: false,
    recordCache: false,
  });
});

test("LATCHKEY_BOOTSTRAP=print keeps the old way, the first credentials on standard error", () => {
  expect(loadConfig({ LATCHKEY_BOOTSTRAP: "print" }).bootstrap).toBe("print");
  expect(loadConfig({ LATCHKEY_DATABASE_CREATE: "on" }).databaseCreate).toBe(true);
  expect(() => loadConfig({ LATCHKEY_BOOTSTRAP: "yes" })).toThrow(
    /LATCHKEY_BOOTSTRAP is 'yes'; use one of on, off, print/,
  );
});

test("LATCHKEY_MCP_ALLOWED_HOSTS is a comma-separated list of host names, none by default", () => {
  expect(loadConfig({}).mcpAllowedHosts).toEqual([]);
  const config = loadConfig({ LATCHKEY_MCP_ALLOWED_HOSTS: " Latchkey.Internal, [::1],mcp.example.com " });
  expect(config.mcpAllowedHosts).toEqual(["latchkey.internal", "[::1]", "mcp.example.com"]);
});

test.each([
  ["PORT", "eighty", "PORT"],
  ["LATCHKEY_RATE_WINDOW_SECONDS", "0", "LATCHKEY_RATE_WINDOW_SECONDS"],
  ["LATCHKEY_BOOTSTRAP", "maybe", "LATCHKEY_BOOTSTRAP"],
  ["LATCHKEY_REDIS_URL", "127.0.0.1:6379", "LATCHKEY_REDIS_URL"],
  ["LATCHKEY_SECRET_PEPPER", "short", "LATCHKEY_SECRET_PEPPER"],
  ["LATCHKEY_MCP_ALLOWED_HOSTS", "https://latchkey.example.com", "LATCHKEY_MCP_ALLOWED_HOSTS"],
  ["LATCHKEY_LOG_FORMAT", "xml", "LATCHKEY_LOG_FORMAT"],
  ["LATCHKEY_METRICS", "yes", "LATCHKEY_METRICS"],
  ["LATCHKEY_REQUEST_TIMEOUT_SECONDS", "0", "LATCHKEY_REQUEST_TIMEOUT_SECONDS"],
  ["LATCHKEY_SHUTDOWN_GRACE_SECONDS", "-1", "LATCHKEY_SHUTDOWN_GRACE_SECONDS"],
])("a bad %s (%j) stops start-up with a message naming it", (name, value, named) => {
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`Invalid configuration: .*${named}`));
});

test.each([
  [
    "LATCHKEY_LOG_LEVEL",
    "verbose",
    "LATCHKEY_LOG_LEVEL is 'verbose'; use one of fatal, error, warn, info, debug, trace, silent",
  ],
  ["LATCHKEY_LOG_FORMAT", "xml", "LATCHKEY_LOG_FORMAT is 'xml'; use one of json, pretty"],
  ["LATCHKEY_METRICS", "yes", "LATCHKEY_METRICS is 'yes'; use one of on, off"],
  ["PORT", "eighty", "PORT is 'eighty'; use an integer from 0 to 65535"],
  ["PORT", "70000", "PORT is '70000'; use an integer from 0 to 65535"],
  [
    "LATCHKEY_RATE_WINDOW_SECONDS",
    "0",
    "LATCHKEY_RATE_WINDOW_SECONDS is '0'; use an integer from 1 to 86400",
  ],
  [
    "LATCHKEY_RATE_WINDOW_SECONDS",
    "1.5",
    "LATCHKEY_RATE_WINDOW_SECONDS is '1.5'; use an integer from 1 to 86400",
  ],
  [
    "LATCHKEY_REDIS_URL",
    "127.0.0.1:6379",
    "LATCHKEY_REDIS_URL is '127.0.0.1:6379'; use a redis://, rediss://, redis+cluster:// or redis+sentinel:// URL",
  ],
  [
    "LATCHKEY_REDIS_PREFIX",
    "a b",
    "LATCHKEY_REDIS_PREFIX is 'a b'; use 1 to 64 letters, digits, '_', '.', ':' or '-'",
  ],
  [
    "LATCHKEY_MCP_ALLOWED_HOSTS",
    "https://latchkey.example.com",
    "LATCHKEY_MCP_ALLOWED_HOSTS is 'https://latchkey.example.com'; use host names separated by commas (no scheme, port or path), e.g. latchkey.example.com",
  ],
])("a bad %s (%j) is told the variable, the value and what to use instead", (name, value, message) => {
  expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${message}`);
  // One sentence per variable, none of Ajv's own ("must be equal to constant", "anyOf").
  expect(() => loadConfig({ [name]: value })).not.toThrow(/constant|anyOf|must match/);
});

test("a pepper that is too short is told its length, never its value", () => {
  expect(() => loadConfig({ LATCHKEY_SECRET_PEPPER: "short-secret" })).toThrow(
    "Invalid configuration: LATCHKEY_SECRET_PEPPER is 12 characters long; use at least 16 characters",
  );
  expect(() => loadConfig({ LATCHKEY_SECRET_PEPPER: "short-secret" })).not.toThrow(/short-secret/);
});

test.each([
  ["mysql://root:hunter2@db:3306/latchkey", "mysql://root:***@db:3306/latchkey"],
  ["postgres:/root:hunter2@db/latchkey", "postgres:/root:hunter2@db/latchkey".replace("hunter2", "***")],
  ["redis://:hunter2@cache:6379", "redis://:***@cache:6379"],
  ["mysql://root:hunt@er2/x@db/latchkey", "mysql://root:***@db/latchkey"],
])("an unsupported database URL (%s) is named with the variable, never with its password", (url, shown) => {
  const load = () => loadConfig({ LATCHKEY_DATABASE_URL: url });
  expect(load).toThrow(
    `Invalid configuration: LATCHKEY_DATABASE_URL is '${shown}'; use sqlite:<path> (default sqlite:./data/latchkey.db) or postgres://user:password@host:5432/database`,
  );
  expect(load).not.toThrow(/hunter2|hunt@er2/);
});

test("a Redis URL of the wrong scheme is named without its password", () => {
  const load = () => loadConfig({ LATCHKEY_REDIS_URL: "http://:hunter2@cache:6379" });
  expect(load).toThrow("LATCHKEY_REDIS_URL is 'http://:***@cache:6379'");
  expect(load).not.toThrow(/hunter2/);
});

test("every bad variable is named, each once", () => {
  expect(() => loadConfig({ PORT: "x", LATCHKEY_LOG_LEVEL: "verbose" })).toThrow(
    "Invalid configuration: PORT is 'x'; use an integer from 0 to 65535; LATCHKEY_LOG_LEVEL is 'verbose'; use one of fatal, error, warn, info, debug, trace, silent",
  );
});

test("with a pepper, keys authenticate and the stored hash is not the plain SHA-256 one", async () => {
  const pepper = "a-long-enough-server-pepper";
  const { app, owner, testApp } = await ownerApp({ env: { LATCHKEY_SECRET_PEPPER: pepper } });
  const read = await app.inject({ url: `/v1/api-keys/${owner.id}`, headers: owner.headers });
  expect(read.statusCode).toBe(200);
  const stored = await testApp.services.store.findKey(owner.orgId, owner.id);
  expect(stored?.secretHash).toBe(createHmac("sha256", pepper).update(owner.secret).digest("hex"));
  expect(stored?.secretHash).not.toBe(createHash("sha256").update(owner.secret).digest("hex"));
});

test("LATCHKEY_TRUSTED_PROXIES is a comma-separated list of CIDRs, none by default; a bad one is named", () => {
  expect(loadConfig({}).trustedProxies).toEqual([]);
  expect(loadConfig({ LATCHKEY_TRUSTED_PROXIES: " 10.0.0.0/8 ,fd00::/8," }).trustedProxies).toEqual([
    "10.0.0.0/8",
    "fd00::/8",
  ]);
  expect(() => loadConfig({ LATCHKEY_TRUSTED_PROXIES: "10.0.0.0/8, 10.0.0.1" })).toThrow(
    /Invalid configuration: LATCHKEY_TRUSTED_PROXIES: "10.0.0.1" is not a CIDR/,
  );
});

test("LATCHKEY_PASSWORD_COST is production's 15 by default, may be raised, never lowered but by the named test setting", () => {
  expect(loadConfig({}).passwordCost).toBe(15);
  expect(loadConfig({ LATCHKEY_PASSWORD_COST: "17" }).passwordCost).toBe(17);
  expect(loadConfig({ LATCHKEY_PASSWORD_COST: "insecure-test" }).passwordCost).toBe(10);
  for (const weaker of ["14", "10", "1", "0", "21", "test"]) {
    expect(() => loadConfig({ LATCHKEY_PASSWORD_COST: weaker })).toThrow(
      `LATCHKEY_PASSWORD_COST is '${weaker}'; use an integer from 15 to 20, or insecure-test in a test suite only`,
    );
  }
});
