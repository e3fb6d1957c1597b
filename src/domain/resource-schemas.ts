import { type Static, Type } from "typebox";
import type { ResourceFamily } from "./resource-families.js";
import { resourceIdPattern } from "./resource-ids.js";

/**
 * The wire shapes of the resource families, defined once: REST validates bodies and publishes OpenAPI
 * with them, the services validate every caller's input with them, and MCP offers them as tool input
 * schemas. Protocol-neutral on purpose, so both adapters import the same objects.
 */

export const MAX_RESOURCE_NAME_LENGTH = 255;
/** Largest `settings`, measured as the UTF-8 bytes of its JSON text. */
export const MAX_SETTINGS_BYTES = 16 * 1024;
/** Deepest nesting of objects and arrays in `settings`, the settings object itself being level 1. */
export const MAX_SETTINGS_DEPTH = 32;

/** Page sizes of a listing. */
export const MAX_RESOURCE_PAGE_SIZE = 100;
export const DEFAULT_RESOURCE_PAGE_SIZE = 10;

const Settings = Type.Unsafe<Record<string, unknown>>({
  type: "object",
  additionalProperties: true,
  description: `Free-form JSON object, at most ${MAX_SETTINGS_BYTES} bytes as JSON and ${MAX_SETTINGS_DEPTH} levels deep. Default {}.`,
});

/** The body of create and update: an update replaces all of it (omitted members return to defaults). */
export const ResourceContent = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_RESOURCE_NAME_LENGTH,
      description: `Display name, 1 to ${MAX_RESOURCE_NAME_LENGTH} characters, not blank.`,
    }),
    disabled: Type.Optional(Type.Boolean({ description: "`true` disables the record. Default `false`." })),
    settings: Type.Optional(Settings),
  },
  { additionalProperties: false, description: "The full content of a record (create and update)." },
);
export type ResourceContent = Static<typeof ResourceContent>;

/** A record as REST and MCP return it. */
export const ResourceRecord = Type.Object({
  id: Type.String({ description: "Record id, e.g. `prx_...`; used in paths." }),
  name: Type.String(),
  enabled: Type.Boolean({ description: "Inverse of the request field `disabled`." }),
  settings: Type.Unsafe<Record<string, unknown>>({ type: "object", additionalProperties: true }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});
export type ResourceRecord = Static<typeof ResourceRecord>;

/** One page of a listing, newest first, disabled records included. */
export const ResourcePage = Type.Object({
  data: Type.Array(ResourceRecord),
  pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
});
export type ResourcePage = Static<typeof ResourcePage>;

const pagingMembers = {
  count: Type.Integer({
    minimum: 1,
    maximum: MAX_RESOURCE_PAGE_SIZE,
    default: DEFAULT_RESOURCE_PAGE_SIZE,
    description: "Page size.",
  }),
  page_start: Type.Optional(
    Type.String({ description: "`pagination.next_page_start` of the previous page." }),
  ),
};

/** `count` and `page_start` of a listing (REST query string). */
export const ListResourcesQuery = Type.Object(pagingMembers, { additionalProperties: false });
export type ListResourcesQuery = Static<typeof ListResourcesQuery>;

/** A listing request from any adapter: both members optional (count defaults to 10). */
export const ListResourcesInput = Type.Object(
  { count: Type.Optional(pagingMembers.count), page_start: pagingMembers.page_start },
  { additionalProperties: false },
);
export type ListResourcesInput = Static<typeof ListResourcesInput>;

/** The id of one of the family's records; another family's id does not match. */
export function ResourceId(family: ResourceFamily) {
  return Type.String({
    pattern: resourceIdPattern(family),
    description: `The ${family.singular}'s id (${family.idPrefix}...).`,
  });
}

/** `{id}` path parameters of a family's record routes. */
export function ResourceIdParams(family: ResourceFamily) {
  return Type.Object({ id: ResourceId(family) });
}

/** `GET /v1/storage-destinations/aws-external-id` and MCP `get_aws_storage_external_id`. */
export const AwsExternalId = Type.Object({
  external_id: Type.String({
    description: "The external id to put in the trust policy of the IAM role latchkey's platform assumes.",
  }),
});
export type AwsExternalId = Static<typeof AwsExternalId>;

/**
 * The MCP tools' input schemas of one family (docs/resource-families.md): `list(count?, page_start?)`,
 * `get(id)`, `create(content)`, `update(id, content)`, `delete(id)`.
 */
export function resourceToolInputSchemas(family: ResourceFamily) {
  const id = ResourceId(family);
  return {
    list: ListResourcesInput,
    get: Type.Object({ id }, { additionalProperties: false }),
    create: Type.Object({ content: ResourceContent }, { additionalProperties: false }),
    update: Type.Object({ id, content: ResourceContent }, { additionalProperties: false }),
    delete: Type.Object({ id }, { additionalProperties: false }),
  };
}
