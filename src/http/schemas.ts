import { type Static, Type } from "typebox";
import { ERROR_STATUS } from "../domain/errors.js";
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "../domain/key-configuration.js";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";

/**
 * The wire shapes, defined once: Fastify validates with them, TypeScript infers from them, and
 * @fastify/swagger publishes them as the OpenAPI document.
 */
/**
 * A string of at most `maxLength` characters, or null. Written as `type: ["string", "null"]` rather than
 * `anyOf`, so that an over-long value gets one clear error instead of one per branch.
 */
function NullableString(maxLength: number, description: string) {
  return Type.Unsafe<string | null>({ type: ["string", "null"], maxLength, description });
}

const PermissionName = Type.String({
  description: "A permission name from the catalogue.",
  examples: ["api_keys:read"],
});

export const KeyConfigurationBody = Type.Object(
  {
    name: Type.Optional(
      NullableString(
        MAX_NAME_LENGTH,
        "Display name. Omitted, null or blank: `Key created YYYY-MM-DD HH:mm:ss` (UTC creation time).",
      ),
    ),
    description: Type.Optional(
      NullableString(MAX_DESCRIPTION_LENGTH, "Purpose of the key. Omitted, null or blank: cleared."),
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
  last_used_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description:
      "Last successful authentication, approximate to the minute (written at most once a minute); null until first use.",
  }),
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

/** The one error body (DESIGN.md section 4); `validation_errors` only on input errors. */
export const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String({ description: "The HTTP status phrase." }),
  message: Type.String(),
  code: Type.String({ enum: Object.keys(ERROR_STATUS) }),
  validation_errors: Type.Optional(
    Type.Array(Type.Object({ path: Type.String({ description: "JSON pointer" }), message: Type.String() })),
  ),
});

export type ErrorBody = Static<typeof ErrorBody>;

/** Documents the error statuses a route can answer with, all in the one error shape. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}
