import type { KeyConfiguration, KeyRecord } from "./types.js";

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
 * the whole catalogue, which the server would refuse beside the flag). Its networks and metadata come
 * along, so that a key created from this one (a rotation) is limited and found like it.
 */
export function configurationOf(key: KeyRecord): Required<KeyConfiguration> {
  return {
    name: key.name,
    description: key.description,
    disabled: !key.enabled,
    permissions: key.all_future_permissions ? [] : [...key.permissions],
    all_future_permissions: key.all_future_permissions,
    allowed_cidrs: key.allowed_cidrs === null ? null : [...key.allowed_cidrs],
    metadata: key.metadata === null ? null : { ...key.metadata },
  };
}
