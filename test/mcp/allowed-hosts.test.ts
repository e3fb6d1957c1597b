import { expect, test } from "vitest";
import { allowedHostnames, checkHostAndOrigin } from "../../src/mcp/allowed-hosts.js";

const check = (allowed: Set<string>, headers: { host?: string; origin?: string }) =>
  checkHostAndOrigin(headers, allowed)?.message;

test("loopback names are always allowed, with any port, IPv6 in brackets", () => {
  const allowed = allowedHostnames("127.0.0.1", []);
  for (const host of ["127.0.0.1:8080", "localhost:1", "LOCALHOST", "[::1]:8080"]) {
    expect(check(allowed, { host }), host).toBeUndefined();
  }
});

test("the listening address is allowed unless it is a wildcard", () => {
  expect(check(allowedHostnames("10.1.2.3", []), { host: "10.1.2.3:8080" })).toBeUndefined();
  expect(check(allowedHostnames("::1", []), { host: "[::1]" })).toBeUndefined();
  expect(check(allowedHostnames("0.0.0.0", []), { host: "0.0.0.0:8080" })).toMatch(/does not answer/);
});

test("extra names come from LATCHKEY_MCP_ALLOWED_HOSTS", () => {
  const allowed = allowedHostnames("0.0.0.0", ["latchkey.example.com"]);
  expect(check(allowed, { host: "latchkey.example.com" })).toBeUndefined();
  expect(
    check(allowed, { host: "latchkey.example.com:443", origin: "https://latchkey.example.com" }),
  ).toBeUndefined();
});

test("a foreign or missing Host, and a foreign, opaque or malformed Origin, are refused with a hint", () => {
  const allowed = allowedHostnames("127.0.0.1", []);
  expect(check(allowed, {})).toMatch(/needs a Host header/);
  expect(check(allowed, { host: "attacker.example:8080" })).toBe(
    "The MCP endpoint does not answer to the host attacker.example. Add the name to LATCHKEY_MCP_ALLOWED_HOSTS if clients reach latchkey under it.",
  );
  expect(check(allowed, { host: "localhost", origin: "https://attacker.example" })).toMatch(
    /origin attacker.example/,
  );
  expect(check(allowed, { host: "localhost", origin: "null" })).toMatch(/origin "null"/);
  expect(checkHostAndOrigin({ host: "a b" }, allowed)?.code).toBe("host_not_allowed");
});
