import { describe, expect, test } from "vitest";
import {
  effectivePermissions,
  grantAllows,
  PERMISSION_CATALOGUE,
  parsePermissionFilter,
} from "../../src/domain/permissions.js";

describe("grants", () => {
  test("an all-future grant lists and allows the whole catalogue", () => {
    const grant = { permissions: [], allFuturePermissions: true };
    expect(effectivePermissions(grant)).toEqual([...PERMISSION_CATALOGUE]);
    for (const permission of PERMISSION_CATALOGUE) expect(grantAllows(grant, permission)).toBe(true);
  });

  test("a plain grant allows only what it lists", () => {
    const grant = { permissions: ["images:create" as const], allFuturePermissions: false };
    expect(grantAllows(grant, "images:create")).toBe(true);
    expect(grantAllows(grant, "images:store")).toBe(false);
  });

  test("the catalogue holds every permission name the spec mentions", () => {
    for (const name of [
      "api_keys:create_update",
      "api_keys:read",
      "api_keys:delete",
      "images:create",
      "images:store",
      "usage:read",
    ]) {
      expect(PERMISSION_CATALOGUE).toContain(name);
    }
  });
});

describe("with_permission filter", () => {
  test("known names pass through", () => {
    expect(parsePermissionFilter(["usage:read", "images:create"])).toEqual(["usage:read", "images:create"]);
  });

  test.each(["images:create,usage:read", "images:create usage:read"])(
    "names joined in %j are refused with a hint",
    (value) => {
      expect(() => parsePermissionFilter([value])).toThrow(/repeat the parameter/);
    },
  );

  test("an unknown name is refused by name", () => {
    expect(() => parsePermissionFilter(["usage:write"])).toThrow(/"usage:write" is not a known permission/);
  });
});
