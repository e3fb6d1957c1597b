import { createHash, createHmac } from "node:crypto";
import { expect, test } from "vitest";
import { loadConfig } from "../src/config.js";
import { ownerApp } from "./helpers/build-test-app.js";

test("defaults match DESIGN.md: 127.0.0.1:8080, SQLite in ./data, 60 s window, bootstrap on", () => {
  expect(loadConfig({})).toMatchObject({
    port: 8080,
    host: "127.0.0.1",
    databaseUrl: "sqlite:./data/latchkey.db",
    redisUrl: undefined,
    rateWindowSeconds: 60,
    bootstrap: true,
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
    bootstrap: false,
    logFormat: "pretty",
    metrics: false,
    recordCache: false,
  });
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

test("with a pepper, keys authenticate and the stored hash is not the plain SHA-256 one", async () => {
  const pepper = "a-long-enough-server-pepper";
  const { app, owner, testApp } = await ownerApp({ env: { LATCHKEY_SECRET_PEPPER: pepper } });
  const read = await app.inject({ url: `/v1/api-keys/${owner.id}`, headers: owner.headers });
  expect(read.statusCode).toBe(200);
  const stored = await testApp.services.store.findKey(owner.orgId, owner.id);
  expect(stored?.secretHash).toBe(createHmac("sha256", pepper).update(owner.secret).digest("hex"));
  expect(stored?.secretHash).not.toBe(createHash("sha256").update(owner.secret).digest("hex"));
});
