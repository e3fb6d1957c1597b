import { expect, test } from "vitest";
import { isPermission } from "../../src/domain/permissions.js";
import { planFeatureOf } from "../../src/domain/plan.js";
import { isRateLimitGroup } from "../../src/domain/rate-limit-groups.js";
import { resolveResourceContent } from "../../src/domain/resource-content.js";
import {
  AWS_EXTERNAL_ID_OPERATION,
  RESOURCE_FAMILIES,
  resourceFamily,
} from "../../src/domain/resource-families.js";
import { isResourceId, newResourceId } from "../../src/domain/resource-ids.js";
import { LatchkeyError } from "../../src/domain/errors.js";

test("the family table matches docs/resource-families.md", () => {
  expect(
    RESOURCE_FAMILIES.map((family) => [
      family.path,
      family.idPrefix,
      family.permissions.read,
      family.groups.write,
    ]),
  ).toEqual([
    ["/v1/proxies", "prx_", "proxies:read", "proxy:write"],
    ["/v1/storage-destinations", "dst_", "storage_destinations:read", "storage-destination:write"],
    ["/v1/og-configs", "ogc_", "og_configs:read", "og-config:write"],
  ]);
  expect(RESOURCE_FAMILIES.flatMap((family) => Object.values(family.tools))).toEqual([
    "list_proxies",
    "get_proxy",
    "create_proxy",
    "update_proxy",
    "delete_proxy",
    "list_storage_destinations",
    "get_storage_destination",
    "create_storage_destination",
    "update_storage_destination",
    "delete_storage_destination",
    "list_og_configs",
    "get_og_config",
    "create_og_config",
    "update_og_config",
    "delete_og_config",
  ]);
  expect(AWS_EXTERNAL_ID_OPERATION).toEqual({
    permission: "storage_destinations:create_update",
    group: "storage-destination:read",
  });
});

test.each(RESOURCE_FAMILIES)(
  "$name: every permission and group exists; the plan feature is the decision's",
  (family) => {
    for (const { permission, group } of Object.values(family.operations)) {
      expect(isPermission(permission)).toBe(true);
      expect(isRateLimitGroup(group)).toBe(true);
      expect(planFeatureOf(permission)).toBe(family.planFeature);
    }
    expect(family.operations.list.group).toBe(family.groups.read);
    expect(family.operations.get.group).toBe(family.groups.read);
    expect(family.operations.delete).toEqual({
      permission: family.permissions.delete,
      group: family.groups.write,
    });
    expect(resourceFamily(family.name)).toBe(family);
  },
);

test("ids carry their family's prefix and 130 random bits; another family's id is not one", () => {
  const [proxies, destinations] = RESOURCE_FAMILIES;
  if (!proxies || !destinations) throw new Error("families missing");
  const ids = new Set(Array.from({ length: 1000 }, () => newResourceId(proxies)));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(isResourceId(proxies, id)).toBe(true);
  expect(isResourceId(destinations, newResourceId(proxies))).toBe(false);
  expect(isResourceId(proxies, "prx_short")).toBe(false);
});

test("content: defaults, blank names refused, settings measured in UTF-8 bytes of JSON", () => {
  expect(resolveResourceContent({ name: "a" })).toEqual({ name: "a", enabled: true, settings: {} });
  expect(resolveResourceContent({ name: "a", disabled: true, settings: { k: 1 } })).toEqual({
    name: "a",
    enabled: false,
    settings: { k: 1 },
  });
  expect(() => resolveResourceContent({ name: " " })).toThrow(LatchkeyError);
  // {"v":"..."} is 8 bytes of punctuation; 16,376 one-byte characters make exactly 16 KiB.
  expect(() => resolveResourceContent({ name: "a", settings: { v: "x".repeat(16_376) } })).not.toThrow();
  expect(() => resolveResourceContent({ name: "a", settings: { v: "x".repeat(16_377) } })).toThrow(/16384/);
  expect(() => resolveResourceContent({ name: "a", settings: { v: "é".repeat(8_189) } })).toThrow(/settings/);
});

test("names with NUL or a lone surrogate are refused (PostgreSQL cannot store them as given)", () => {
  for (const name of ["a\u0000b", "\ud800x", "x\udc00"]) {
    expect(() => resolveResourceContent({ name })).toThrow(/NUL characters or lone surrogates/);
  }
  expect(resolveResourceContent({ name: "🔑 ok" }).name).toBe("🔑 ok");
});
