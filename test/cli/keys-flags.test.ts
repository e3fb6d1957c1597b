import { describe, expect, test } from "vitest";
import { EXIT, exitCodeOf, UsageError } from "../../src/cli/exit-codes.js";
import { createConfiguration, updatedConfiguration } from "../../src/cli/keys-flags.js";
import { formatKeyTable } from "../../src/cli/keys-output.js";
import { printable } from "../../src/cli/text-table.js";
import { type KeyRecord, KeyRotationError, LatchkeyError } from "@latchkey/client";

const current: KeyRecord = {
  id: "key_1",
  api_id: "lkid_1",
  name: "worker",
  description: "renders",
  enabled: true,
  permissions: ["images:create", "usage:read"],
  all_future_permissions: false,
  created_at: "2026-11-22T10:00:00.000Z",
  updated_at: "2026-11-22T10:00:00.000Z",
  last_used_at: null,
  leaked_at: null,
  expires_at: null,
  expired: false,
};

describe("expiry flags", () => {
  test("--expires-at is sent on create and update; left out, an update omits it so the server keeps it", () => {
    expect(
      createConfiguration({ permission: ["usage:read"], expiresAt: "2027-01-31T00:00:00Z" }),
    ).toMatchObject({ expires_at: "2027-01-31T00:00:00Z" });
    expect(updatedConfiguration(current, { expiresAt: "2027-01-31T00:00:00Z" })).toMatchObject({
      expires_at: "2027-01-31T00:00:00Z",
      name: "worker",
    });
    expect(updatedConfiguration(current, { name: "renamed" })).not.toHaveProperty("expires_at");
  });
});

describe("keys update flags", () => {
  test("flags not given keep the key's current values", () => {
    expect(updatedConfiguration(current, { name: "renamed" })).toEqual({
      name: "renamed",
      description: "renders",
      disabled: false,
      permissions: ["images:create", "usage:read"],
      all_future_permissions: false,
    });
  });

  test("--add-permission and --remove-permission edit the current list", () => {
    const config = updatedConfiguration(current, {
      addPermission: ["images:read"],
      removePermission: ["usage:read"],
    });
    expect(config.permissions).toEqual(["images:create", "images:read"]);
    expect(config.name).toBe("worker");
  });

  test("--permission replaces the list; --disabled and --enabled set the state", () => {
    expect(updatedConfiguration(current, { permission: ["usage:read"], disabled: true })).toMatchObject({
      permissions: ["usage:read"],
      disabled: true,
    });
    expect(updatedConfiguration({ ...current, enabled: false }, { enabled: true }).disabled).toBe(false);
  });

  test("an all-future key is resent with an empty list, and --no-all-future keeps today's permissions", () => {
    const admin = {
      ...current,
      permissions: ["images:create", "api_keys:read"],
      all_future_permissions: true,
    };
    expect(updatedConfiguration(admin, { name: "admin" })).toMatchObject({
      permissions: [],
      all_future_permissions: true,
    });
    expect(updatedConfiguration(admin, { allFuture: false })).toMatchObject({
      permissions: ["images:create", "api_keys:read"],
      all_future_permissions: false,
    });
  });

  test("contradictions and empty updates are usage errors", () => {
    expect(() => updatedConfiguration(current, {})).toThrow(UsageError);
    expect(() => updatedConfiguration(current, { disabled: true, enabled: true })).toThrow(UsageError);
    expect(() => updatedConfiguration(current, { allFuture: true, permission: ["usage:read"] })).toThrow(
      /--no-all-future/,
    );
  });
});

describe("keys create flags", () => {
  test("a key needs a permission or --all-future, not both", () => {
    expect(() => createConfiguration({ permission: [] })).toThrow(/at least one --permission/);
    expect(() => createConfiguration({ permission: ["usage:read"], allFuture: true })).toThrow(UsageError);
    expect(createConfiguration({ permission: [], allFuture: true })).toEqual({
      disabled: false,
      permissions: [],
      all_future_permissions: true,
    });
  });
});

describe("exit statuses", () => {
  const failure = (status: number, code: string) => new LatchkeyError({ status, code, message: "m" });

  test("each kind of failure has its documented status", () => {
    expect(exitCodeOf(new UsageError("x"))).toBe(EXIT.usage);
    expect(exitCodeOf(failure(400, "invalid_request"))).toBe(EXIT.usage);
    expect(exitCodeOf(failure(401, "unauthorized"))).toBe(EXIT.denied);
    expect(exitCodeOf(failure(403, "insufficient_authority"))).toBe(EXIT.denied);
    expect(exitCodeOf(failure(404, "not_found"))).toBe(EXIT.failed);
    expect(exitCodeOf(failure(429, "rate_limited"))).toBe(EXIT.limited);
    expect(exitCodeOf(failure(0, "network_error"))).toBe(EXIT.failed);
  });

  test("a rotation stopped after creating a key is 4; before, the cause decides", () => {
    expect(exitCodeOf(new KeyRotationError("verify", "key_old", "key_new", new Error("x")))).toBe(4);
    expect(
      exitCodeOf(new KeyRotationError("create", "key_old", undefined, failure(403, "missing_permission"))),
    ).toBe(EXIT.denied);
  });
});

describe("output for people", () => {
  test("control characters in names are escaped, so a name cannot drive the terminal", () => {
    expect(printable("evil\u001b[2J\nname")).toBe("evil\\u001b[2J\\u000aname");
    const table = formatKeyTable([{ ...current, name: "line\nbreak" }]);
    expect(table.split("\n")).toHaveLength(4); // header, one row, count, final newline
  });
});
