import type { KeyConfiguration, KeyRecord } from "./types.js";

/** The spec's fields of a configuration, which an update replaces as a whole. */
type SpecConfiguration = Required<
  Pick<KeyConfiguration, "name" | "description" | "disabled" | "permissions" | "all_future_permissions">
>;

/**
 * The configuration that reproduces a key as it is now, ready to resend with changes. An update
 * replaces the whole configuration and omitted members return to their defaults, so an update that
 * only says `disabled: false` would wipe the name, description and permissions; start from this instead:
 *
 * ```ts
 * await client.keys.update(id, { ...configurationOf(await client.keys.get(id)), name: "billing worker" });
 * ```
 *
 * An all-future key is resent as `permissions: []` with `all_future_permissions: true` (its record lists
 * the whole catalogue, which the server would refuse beside the flag). latchkey's own fields
 * (`expires_at`) are left out: the server keeps them when an update omits them.
 */
export function configurationOf(key: KeyRecord): SpecConfiguration {
  return {
    name: key.name,
    description: key.description,
    disabled: !key.enabled,
    permissions: key.all_future_permissions ? [] : [...key.permissions],
    all_future_permissions: key.all_future_permissions,
  };
}
