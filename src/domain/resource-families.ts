import type { Permission } from "./permissions.js";
import type { PlanFeature } from "./plan.js";
import type { RateLimitGroup } from "./rate-limit-groups.js";

/**
 * The management resource families other than API keys (docs/resource-families.md). The spec shows only
 * their limits, so latchkey keeps them as generic named records with a settings object; everything that
 * differs between them is in this table, and every route, tool, store query and test is written once
 * against it.
 */
export const RESOURCE_FAMILY_NAMES = ["proxies", "storage_destinations", "og_configs"] as const;

/** A family's name; also its value in the store's `family` column. */
export type ResourceFamilyName = (typeof RESOURCE_FAMILY_NAMES)[number];

/** The five operations every family offers. */
export type ResourceOperation = "list" | "get" | "create" | "update" | "delete";

/** What one operation demands of its caller (the shape of `OperationPolicy` in services/operations). */
export interface ResourceOperationPolicy {
  /** Permission the calling key must hold. */
  permission: Permission;
  /** Operation group the request counts against. */
  group: RateLimitGroup;
}

/** The MCP tool names of one family (docs/resource-families.md). */
export interface ResourceToolNames {
  list: string;
  get: string;
  create: string;
  update: string;
  delete: string;
}

/** Everything that distinguishes one family from another. */
export interface ResourceFamily {
  /** `proxies`, `storage_destinations` or `og_configs`. */
  name: ResourceFamilyName;
  /** One record, for people: `proxy`, `storage destination`, `OG configuration`. */
  singular: string;
  /** Several records, for people. */
  plural: string;
  /** REST collection path, e.g. `/v1/proxies`; a record is `${path}/{id}`. */
  path: string;
  /** Prefix of record ids, e.g. `prx_`. */
  idPrefix: string;
  /** Permissions: list and retrieve need `read`, create and update `createUpdate`, delete `delete`. */
  permissions: { read: Permission; createUpdate: Permission; delete: Permission };
  /** Operation groups: list and retrieve count against `read`; create, update, delete against `write`. */
  groups: { read: RateLimitGroup; write: RateLimitGroup };
  /** The plan feature that can switch the family off; none when every plan includes it. */
  planFeature: PlanFeature | undefined;
  /** Who may do what, per operation; REST routes and MCP tools pass these to the access decision. */
  operations: Record<ResourceOperation, ResourceOperationPolicy>;
  /** MCP tool names: `list_<plural>`, `get_<singular>`, ... */
  tools: ResourceToolNames;
  /** The CLI command, e.g. `storage-destinations`. */
  command: string;
}

/** Records of one family an organization may hold at most (disabled ones included). */
export const MAX_RESOURCES_PER_FAMILY = 1000;

interface FamilySpec {
  name: ResourceFamilyName;
  singular: string;
  plural: string;
  slug: string;
  idPrefix: string;
  permissionPrefix: string;
  groupPrefix: string;
  toolSingular: string;
  toolPlural: string;
  planFeature: PlanFeature | undefined;
}

function defineFamily(spec: FamilySpec): ResourceFamily {
  const permissions = {
    read: `${spec.permissionPrefix}:read` as Permission,
    createUpdate: `${spec.permissionPrefix}:create_update` as Permission,
    delete: `${spec.permissionPrefix}:delete` as Permission,
  };
  const groups = {
    read: `${spec.groupPrefix}:read` as RateLimitGroup,
    write: `${spec.groupPrefix}:write` as RateLimitGroup,
  };
  return Object.freeze({
    name: spec.name,
    singular: spec.singular,
    plural: spec.plural,
    path: `/v1/${spec.slug}`,
    idPrefix: spec.idPrefix,
    permissions,
    groups,
    planFeature: spec.planFeature,
    operations: {
      list: { permission: permissions.read, group: groups.read },
      get: { permission: permissions.read, group: groups.read },
      create: { permission: permissions.createUpdate, group: groups.write },
      update: { permission: permissions.createUpdate, group: groups.write },
      delete: { permission: permissions.delete, group: groups.write },
    },
    tools: {
      list: `list_${spec.toolPlural}`,
      get: `get_${spec.toolSingular}`,
      create: `create_${spec.toolSingular}`,
      update: `update_${spec.toolSingular}`,
      delete: `delete_${spec.toolSingular}`,
    },
    command: spec.slug,
  });
}

export const PROXIES = defineFamily({
  name: "proxies",
  singular: "proxy",
  plural: "proxies",
  slug: "proxies",
  idPrefix: "prx_",
  permissionPrefix: "proxies",
  groupPrefix: "proxy",
  toolSingular: "proxy",
  toolPlural: "proxies",
  planFeature: "proxies",
});

export const STORAGE_DESTINATIONS = defineFamily({
  name: "storage_destinations",
  singular: "storage destination",
  plural: "storage destinations",
  slug: "storage-destinations",
  idPrefix: "dst_",
  permissionPrefix: "storage_destinations",
  groupPrefix: "storage-destination",
  toolSingular: "storage_destination",
  toolPlural: "storage_destinations",
  planFeature: "storageDestinations",
});

export const OG_CONFIGS = defineFamily({
  name: "og_configs",
  singular: "OG configuration",
  plural: "OG configurations",
  slug: "og-configs",
  idPrefix: "ogc_",
  permissionPrefix: "og_configs",
  groupPrefix: "og-config",
  toolSingular: "og_config",
  toolPlural: "og_configs",
  planFeature: undefined,
});

/** Every family, in the order they are documented. */
export const RESOURCE_FAMILIES: readonly ResourceFamily[] = [PROXIES, STORAGE_DESTINATIONS, OG_CONFIGS];

/** The family of a name; throws on a name not in the table (a programming error). */
export function resourceFamily(name: ResourceFamilyName): ResourceFamily {
  const family = RESOURCE_FAMILIES.find((candidate) => candidate.name === name);
  if (!family) throw new Error(`Unknown resource family ${name}`);
  return family;
}

/**
 * `GET /v1/storage-destinations/aws-external-id` (MCP `get_aws_storage_external_id`): reading the
 * external id is part of setting up a destination, hence `create_update`, but it changes nothing, hence
 * the read group.
 */
export const AWS_EXTERNAL_ID_OPERATION: ResourceOperationPolicy = {
  permission: STORAGE_DESTINATIONS.permissions.createUpdate,
  group: STORAGE_DESTINATIONS.groups.read,
};
