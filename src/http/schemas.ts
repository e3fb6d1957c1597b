import { type Static, Type } from "typebox";
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "../domain/key-configuration.js";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";

/**
 * The wire shapes, defined once: Fastify validates with them, TypeScript infers from them, and
 * @fastify/swagger publishes them as the OpenAPI document.
 */
const PermissionName = Type.String({
  description: "A permission name from the catalogue.",
  examples: ["api_keys:read"],
});

export const KeyConfigurationBody = Type.Object(
  {
    name: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_NAME_LENGTH }), Type.Null()], {
        description:
          "Display name. Omitted, null or blank: `Key created YYYY-MM-DD HH:mm:ss` (UTC creation time).",
      }),
    ),
    description: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }), Type.Null()], {
        description: "Purpose of the key. Omitted, null or blank: cleared.",
      }),
    ),
    disabled: Type.Optional(Type.Boolean({ description: "`true` disables the key. Default `false`." })),
    permissions: Type.Array(PermissionName, {
      description: "The complete list of permissions the key is to have; `[]` with all_future_permissions.",
      maxItems: 1000,
    }),
    all_future_permissions: Type.Optional(
      Type.Boolean({ description: "The key gets every current and future permission. Default `false`." }),
    ),
  },
  { additionalProperties: false, description: "The full configuration of a key (create and update)." },
);
export type KeyConfigurationBody = Static<typeof KeyConfigurationBody>;

export const KeyRecord = Type.Object({
  id: Type.String({ description: "Resource identifier, used in management paths." }),
  api_id: Type.String({ description: "Basic-authentication username." }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean({ description: "Whether the key can authenticate (inverse of `disabled`)." }),
  permissions: Type.Array(Type.String({ enum: [...PERMISSION_CATALOGUE] })),
  all_future_permissions: Type.Boolean(),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});
export type KeyRecord = Static<typeof KeyRecord>;

export const CreatedKeyRecord = Type.Object({
  ...KeyRecord.properties,
  api_key: Type.String({ description: "The secret. Returned only here: store it now." }),
});

export const KeyIdParams = Type.Object({
  id: Type.String({
    pattern: "^key_[0-9A-Za-z]{22}$",
    description: "The key's resource id (not its api_id).",
  }),
});

export const ListKeysQuery = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Page size." }),
    page_start: Type.Optional(
      Type.String({ description: "`pagination.next_page_start` of the previous page." }),
    ),
    include_disabled: Type.Boolean({ default: false }),
    with_permission: Type.Optional(
      Type.Array(Type.String(), { description: "Repeat once per permission; keys must allow all of them." }),
    ),
  },
  { additionalProperties: false },
);
export type ListKeysQuery = Static<typeof ListKeysQuery>;

export const KeyList = Type.Object({
  data: Type.Array(KeyRecord),
  pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
});

/** The empty answer of a disable: documented as 204 so that generated clients expect no body. */
export const NoContent = Type.Null({ description: "The key is disabled (or already was). No body." });
