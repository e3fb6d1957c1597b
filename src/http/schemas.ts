import { type Static, Type } from "typebox";
import { ERROR_STATUS, type ErrorCode } from "../domain/errors.js";
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "../domain/key-configuration.js";
import { MAX_METADATA_MEMBERS, MAX_METADATA_VALUE_LENGTH } from "../domain/key-metadata.js";
import { MAX_ALLOWED_CIDRS } from "../domain/networks.js";
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from "../domain/key-lifecycle.js";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";
import { ErrorBody } from "./error-body.js";
import { errorExample } from "./error-examples.js";
import { named } from "./schema-names.js";
import { KeyRateLimitsBody } from "./limit-schemas.js";

/**
 * The wire shapes, defined once: Fastify validates with them, TypeScript infers from them, and
 * @fastify/swagger publishes them as the OpenAPI document.
 */
export { named } from "./schema-names.js";

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

/**
 * latchkey's own members of create and update. Unlike the spec's, an update that omits them keeps
 * them, and null clears them; the domain (networks-and-metadata.ts) checks each CIDR and member name.
 */
const AllowedCidrs = Type.Unsafe<string[] | null>({
  type: ["array", "null"],
  items: { type: "string", maxLength: 100 },
  maxItems: MAX_ALLOWED_CIDRS,
  description:
    `Networks the key may be used from: up to ${MAX_ALLOWED_CIDRS} IPv4 or IPv6 CIDRs; null: any address. ` +
    "Omitted on update: kept. A request from elsewhere is `403 ip_not_allowed`.",
  examples: [["203.0.113.0/24", "2001:db8::/32"]],
});

const Metadata = Type.Unsafe<Record<string, string> | null>({
  type: ["object", "null"],
  maxProperties: MAX_METADATA_MEMBERS,
  additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE_LENGTH },
  description:
    `Up to ${MAX_METADATA_MEMBERS} string members (names of 1 to 40 letters, digits, '_', '.' or '-'; ` +
    `values up to ${MAX_METADATA_VALUE_LENGTH} characters), searched with \`metadata[<name>]=<value>\`. ` +
    "null clears; omitted on update: kept.",
  examples: [{ team: "billing", env: "production" }],
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
    allowed_cidrs: Type.Optional(AllowedCidrs),
    metadata: Type.Optional(Metadata),
    rate_limits: Type.Optional(Type.Union([KeyRateLimitsBody, Type.Null()])),
    expires_at: Type.Optional(
      Type.Unsafe<string | null>({
        type: ["string", "null"],
        description:
          "latchkey's own: when the key stops authenticating (RFC 3339, in the future). Omitted on create: " +
          "never, or the organization's longest lifetime; omitted on update: kept. An update may only " +
          "bring it forward, never later or to null.",
        examples: ["2027-01-31T00:00:00Z"],
      }),
    ),
  },
  {
    ...named("ApiKeyRequest", "The full configuration of a key (create and update)."),
    additionalProperties: false,
    examples: [
      {
        name: "renderer",
        description: "production image renderer",
        permissions: ["images:create", "images:store"],
      },
    ],
  },
);
export type KeyConfigurationBody = Static<typeof KeyConfigurationBody>;

/** The permission names of the catalogue, as records list them. */
const Permission = Type.String({
  ...named("Permission", "A permission name of the catalogue."),
  enum: [...PERMISSION_CATALOGUE],
});

const keyRecordExample = {
  id: "key_4vJ2mQ8sT1xZ7bN3cP5dR9",
  api_id: "lkid_88hBywxUJK12FosEYO3pnC",
  name: "renderer",
  description: "production image renderer",
  enabled: true,
  permissions: ["images:create", "images:store"],
  all_future_permissions: false,
  created_at: "2026-11-22T11:36:56.123Z",
  updated_at: "2026-11-22T11:36:56.123Z",
  last_used_at: "2026-11-22T12:05:00.000Z",
  leaked_at: null,
  allowed_cidrs: null,
  metadata: { team: "rendering" },
  expires_at: null,
  expired: false,
};

export const KeyRecord = Type.Object(
  {
    id: Type.String({ description: "Resource identifier, used in management paths." }),
    api_id: Type.String({ description: "Basic-authentication username." }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean({ description: "Whether the key can authenticate (inverse of `disabled`)." }),
    permissions: Type.Array(Permission),
    all_future_permissions: Type.Boolean(),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
    last_used_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description:
        "Last successful authentication, approximate to the minute (written at most once a minute); null until first use.",
    }),
    leaked_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description:
        "When a secret scanner reported the key's secret public (docs/secret-scanning.md); null otherwise.",
    }),
    allowed_cidrs: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: "Networks (CIDRs) the key may be used from; null: any address.",
    }),
    metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: "The key's metadata members; null: none.",
    }),
    expires_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "When the key stops authenticating; null when it never expires.",
    }),
    expired: Type.Boolean({
      description: "Whether `expires_at` has passed: the key no longer authenticates.",
    }),
    rate_limits: Type.Optional(KeyRateLimitsBody),
  },
  { ...named("ApiKeyRecord", "A key, without its secret."), examples: [keyRecordExample] },
);
export type KeyRecord = Static<typeof KeyRecord>;

export const CreatedKeyRecord = Type.Object(
  {
    ...KeyRecord.properties,
    api_key: Type.String({ description: "The secret. Returned only here: store it now." }),
  },
  {
    ...named("CreatedApiKey", "A new key with its secret: the only response that ever shows the secret."),
    examples: [{ ...keyRecordExample, api_key: "lksk_3Xq9TtVb8wYzN2kLm4PpRs6DfGh1Jc0Ae5Ui7Oy9WbZ1a2b3c" }],
  },
);

export const RollKeyBody = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        description: `How long the replaced secret keeps working, in seconds (at most a week); 0 ends it at once. Default ${DEFAULT_OVERLAP_SECONDS} (an hour).`,
      }),
    ),
  },
  {
    ...named("RollApiKeyRequest", "How to roll a key's secret."),
    additionalProperties: false,
    examples: [{ overlap_seconds: 3600 }],
  },
);
export type RollKeyBody = Static<typeof RollKeyBody>;

export const RolledKeyRecord = Type.Object(
  {
    ...CreatedKeyRecord.properties,
    previous_secret_expires_at: Type.String({
      format: "date-time",
      description:
        "Until when the replaced secret authenticates (the roll's time when overlap_seconds is 0).",
    }),
  },
  {
    ...named("RolledApiKey", "The key with its new secret, shown only here, and the end of the old one."),
    examples: [
      {
        ...keyRecordExample,
        api_key: "lksk_3Xq9TtVb8wYzN2kLm4PpRs6DfGh1Jc0Ae5Ui7Oy9WbZ1a2b3c",
        previous_secret_expires_at: "2026-11-22T13:05:00.000Z",
      },
    ],
  },
);

export const KeyIdParams = Type.Object({
  id: Type.String({
    pattern: "^key_[0-9A-Za-z]{22}$",
    description: "The key's resource id (not its api_id).",
  }),
});

/** A list filter's query member: `metadata[team]`; the name is group 1. */
export const METADATA_FILTER = /^metadata\[([A-Za-z0-9_.-]{1,40})\]$/;

/**
 * The OpenAPI description of the `metadata[<name>]=<value>` filters, which a query-string schema's
 * properties cannot express (their names vary): one `deepObject` parameter, added to the list
 * operation by openapi.ts.
 */
export const METADATA_FILTER_PARAMETER = {
  name: "metadata",
  in: "query",
  required: false,
  style: "deepObject",
  explode: true,
  description:
    "`metadata[<name>]=<value>`, once per member name: only keys holding every one of these members, with " +
    "exactly these values.",
  schema: {
    type: "object",
    maxProperties: MAX_METADATA_MEMBERS,
    additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE_LENGTH },
    examples: [{ team: "billing" }],
  },
} as const;

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
    name_prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_NAME_LENGTH,
        description: "Only keys whose name starts with this text (case-sensitive).",
      }),
    ),
  },
  {
    additionalProperties: false,
    // `metadata[<name>]=<value>`, once per member name: keys must hold every one given.
    patternProperties: {
      [METADATA_FILTER.source]: { type: "string", maxLength: MAX_METADATA_VALUE_LENGTH },
    },
  },
);
export type ListKeysQuery = Static<typeof ListKeysQuery>;

export const KeyList = Type.Object(
  {
    data: Type.Array(KeyRecord),
    pagination: Type.Object(
      {
        next_page_start: Type.Union([Type.String(), Type.Null()], {
          description: "Cursor of the next page (`page_start`); null on the last page.",
        }),
      },
      named("Pagination", "Where the next page starts."),
    ),
  },
  {
    ...named("ApiKeyList", "One page of keys, newest first."),
    examples: [{ data: [keyRecordExample], pagination: { next_page_start: null } }],
  },
);

/** The empty answer of a disable: documented as 204 so that generated clients expect no body. */
export const NoContent = Type.Null({ description: "The key is disabled (or already was). No body." });

export { ErrorBody } from "./error-body.js";

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * Documents the errors a route can answer with, one response per status, each in the one error shape
 * with an example per code. Pass error codes (`"key_quota_exceeded"`) or statuses (`409`: every code
 * of that status).
 */
export function errorResponses(...errors: (ErrorCode | number)[]): Record<number, typeof ErrorBody> {
  const codes = errors.flatMap((error) =>
    typeof error === "number" ? CODES.filter((code) => ERROR_STATUS[code] === error) : [error],
  );
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [status, errorResponse(statusCodes)]),
  );
}

const errorResponseByCodes = new Map<string, typeof ErrorBody>();

/**
 * The response of one status with these codes: the same object for every route that answers them, so
 * that its examples are made and its serializer built once (src/http/serializer-compiler.ts).
 */
function errorResponse(statusCodes: ErrorCode[]): typeof ErrorBody {
  const key = statusCodes.join(" ");
  const known = errorResponseByCodes.get(key);
  if (known) return known;
  const response = {
    ...ErrorBody,
    "x-response-description": `Error ${statusCodes.map((code) => `\`${code}\``).join(" or ")}.`,
    // A named example per code (@fastify/swagger moves `x-examples` to the media object).
    "x-examples": Object.fromEntries(
      statusCodes.map((code) => [code, { summary: code, value: errorExample(code) }]),
    ),
  };
  errorResponseByCodes.set(key, response);
  return response;
}
