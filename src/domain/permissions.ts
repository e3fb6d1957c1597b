import { invalidRequest } from "./errors.js";

/**
 * The permission catalogue. Adding a name here is all it takes for every all-future key to receive it:
 * records of such keys list the catalogue as it is when they are read.
 */
export const PERMISSION_CATALOGUE = [
  "images:create",
  "images:read",
  "images:delete",
  "images:store",
  "templates:read",
  "templates:create_update",
  "templates:delete",
  "proxies:read",
  "proxies:create_update",
  "proxies:delete",
  "storage_destinations:read",
  "storage_destinations:create_update",
  "storage_destinations:delete",
  "og_configs:read",
  "og_configs:create_update",
  "og_configs:delete",
  "api_keys:read",
  "api_keys:create_update",
  "api_keys:delete",
  "usage:read",
  "audit:read",
  "webhooks:read",
  "webhooks:create_update",
] as const;

export type Permission = (typeof PERMISSION_CATALOGUE)[number];

const catalogueIndex = new Map<string, number>(PERMISSION_CATALOGUE.map((name, index) => [name, index]));

export function isPermission(name: string): name is Permission {
  return catalogueIndex.has(name);
}

/** Folds duplicates and sorts into catalogue order, so equal sets always look the same. */
export function normalizePermissions(names: Iterable<Permission>): Permission[] {
  return [...new Set(names)].sort((a, b) => (catalogueIndex.get(a) ?? 0) - (catalogueIndex.get(b) ?? 0));
}

/** What a key is allowed to do, as stored: its own list, or everything present and future. */
export interface Grant {
  /** Permissions granted by name, in catalogue order. Empty for an all-future key. */
  permissions: readonly Permission[];
  /** Whether the key holds every permission of the catalogue, including names added later. */
  allFuturePermissions: boolean;
}

/** The permissions a grant confers right now: the whole catalogue for an all-future key. */
export function effectivePermissions(grant: Grant): Permission[] {
  return grant.allFuturePermissions ? [...PERMISSION_CATALOGUE] : [...grant.permissions];
}

export function grantAllows(grant: Grant, permission: Permission): boolean {
  return grant.allFuturePermissions || grant.permissions.includes(permission);
}

/**
 * Validates the repeatable `with_permission` list filter. Names joined by commas or spaces are refused
 * with a hint, because silently matching nothing would look like "no such keys".
 */
export function parsePermissionFilter(values: readonly string[]): Permission[] {
  return values.map((value, index) => {
    if (isPermission(value)) return value;
    const path = `/query/with_permission/${index}`;
    if (/[\s,]/.test(value.trim())) {
      throw invalidRequest(
        `with_permission "${value}" joins several names: repeat the parameter once per permission instead.`,
        path,
      );
    }
    throw invalidRequest(`with_permission "${value}" is not a known permission.`, path);
  });
}
