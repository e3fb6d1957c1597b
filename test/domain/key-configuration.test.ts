import { describe, expect, test } from "vitest";
import {
  defaultKeyName,
  parseKeyConfiguration,
  withDefaultName,
} from "../../src/domain/key-configuration.js";

const createdAt = Date.parse("2026-03-04T05:06:07.890Z");

function issuesOf(input: Parameters<typeof parseKeyConfiguration>[0]): { path: string; message: string }[] {
  try {
    parseKeyConfiguration(input);
  } catch (error) {
    expect(error).toMatchObject({ code: "invalid_request" });
    return (error as { validationErrors: { path: string; message: string }[] }).validationErrors;
  }
  throw new Error("expected the configuration to be refused");
}

describe("defaults", () => {
  test("the default name is built from the creation time in UTC", () => {
    expect(defaultKeyName(createdAt)).toBe("Key created 2026-03-04 05:06:07");
  });

  test.each([undefined, null, "", "   \t\n"])("name %j becomes the default name", (name) => {
    const configuration = withDefaultName(parseKeyConfiguration({ name, permissions: [] }), createdAt);
    expect(configuration.name).toBe("Key created 2026-03-04 05:06:07");
  });

  test.each([undefined, null, "", "  "])("description %j is cleared", (description) => {
    expect(parseKeyConfiguration({ description, permissions: [] }).description).toBeNull();
  });

  test("omitted flags default to an enabled key without all-future access", () => {
    const configuration = parseKeyConfiguration({ permissions: [] });
    expect(configuration.enabled).toBe(true);
    expect(configuration.allFuturePermissions).toBe(false);
  });

  test("disabled: true gives a disabled key", () => {
    expect(parseKeyConfiguration({ disabled: true, permissions: [] }).enabled).toBe(false);
  });
});

describe("limits", () => {
  test("255 code points of name and 2,000 of description are accepted, one more is not", () => {
    const emoji = "🔑"; // one code point, two UTF-16 units
    expect(() =>
      parseKeyConfiguration({ name: emoji.repeat(255), description: emoji.repeat(2000), permissions: [] }),
    ).not.toThrow();
    const issues = issuesOf({ name: emoji.repeat(256), description: "x".repeat(2001), permissions: [] });
    expect(issues.map((issue) => issue.path)).toEqual(["/name", "/description"]);
  });
});

describe("permissions", () => {
  test("duplicates are folded and names sorted into catalogue order", () => {
    const configuration = parseKeyConfiguration({
      permissions: ["usage:read", "images:create", "usage:read"],
    });
    expect(configuration.permissions).toEqual(["images:create", "usage:read"]);
  });

  test("an unknown name is refused with its position and name", () => {
    const issues = issuesOf({ permissions: ["images:create", "images:explode"] });
    expect(issues).toEqual([{ path: "/permissions/1", message: 'unknown permission "images:explode"' }]);
  });

  test("all_future_permissions requires an empty permissions array", () => {
    expect(issuesOf({ permissions: ["images:create"], all_future_permissions: true })[0]?.path).toBe(
      "/permissions",
    );
    expect(
      parseKeyConfiguration({ permissions: [], all_future_permissions: true }).allFuturePermissions,
    ).toBe(true);
  });
});
