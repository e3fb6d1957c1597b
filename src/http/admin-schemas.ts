import { type Static, type TObject, Type } from "typebox";
import { MAX_CREDIT_THRESHOLDS, MAX_PLAN_NUMBER } from "../domain/plan.js";
import { GroupLimitsBody } from "./limit-schemas.js";
import { CreatedKeyRecord, named } from "./schemas.js";

/** The wire shapes of the provisioning API (`/v1/admin`, docs/provisioning.md), defined once. */

/**
 * A request body's shape inside another body: the same members without the component name, because
 * the validator registers a named schema once, where it is a route's whole body.
 */
function unnamed<T extends TObject>(schema: T): T {
  return Type.Object(schema.properties, { additionalProperties: false }) as unknown as T;
}

const organizationExample = {
  id: "org_QH0ptbBe7WlnJxYGrHxbYS",
  name: "Acme Corp",
  external_id: "cus_9f8e7d",
  enabled: true,
  created_at: "2026-11-22T11:36:56.123Z",
  updated_at: "2026-11-22T11:36:56.123Z",
};

export const OrganizationRecordBody = Type.Object(
  {
    id: Type.String({ description: "`org_...` identifier." }),
    name: Type.String(),
    external_id: Type.Union([Type.String(), Type.Null()], {
      description: "The platform's own id of this customer (unique); null: none.",
    }),
    enabled: Type.Boolean({
      description: "false while the platform has it disabled: its keys, connections and users are refused.",
    }),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
  },
  {
    ...named("Organization", "An organization, as the platform manages it."),
    examples: [organizationExample],
  },
);
export type OrganizationRecordBody = Static<typeof OrganizationRecordBody>;

const ExternalId = Type.Unsafe<string | null>({
  type: ["string", "null"],
  minLength: 1,
  maxLength: 255,
  description: "The platform's own id of this customer (unique); null removes it.",
  examples: ["cus_9f8e7d"],
});

const planNumber = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_PLAN_NUMBER, description });

const CreditThresholds = Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), {
  maxItems: MAX_CREDIT_THRESHOLDS,
  uniqueItems: true,
  description:
    "Percentages of the allowance at which `credits.threshold_reached` is sent, once each per billing " +
    "period: 1 to 100, at most 5. Default: [80, 100]; [] sends none.",
  examples: [[50, 80, 100]],
});

/** The plan's members; on `PUT .../plan` an omitted member returns to the deployment's default. */
export const PlanBody = Type.Object(
  {
    image_credits: Type.Optional(planNumber("Image credits per billing period. Default: the deployment's.")),
    overages: Type.Optional(
      Type.Boolean({ description: "Allow (and record) consumption past the allowance." }),
    ),
    period_anchor: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "Anchor of the monthly billing periods (RFC 3339). Default: the organization's creation time.",
        examples: ["2026-12-01T00:00:00Z"],
      }),
    ),
    max_batch_size: Type.Optional(planNumber("Largest batch; 0 = no batching (the default).")),
    proxies: Type.Optional(Type.Boolean({ description: "Whether the plan includes proxies (default on)." })),
    storage_destinations: Type.Optional(
      Type.Boolean({ description: "Whether the plan includes storage destinations (default on)." }),
    ),
    credit_thresholds: Type.Optional(CreditThresholds),
  },
  {
    ...named("PlanRequest", "An organization's plan; omitted members take the deployment's defaults."),
    additionalProperties: false,
    examples: [{ image_credits: 5000, overages: false, period_anchor: "2026-12-01T00:00:00Z" }],
  },
);
export type PlanBody = Static<typeof PlanBody>;

export const PlanRecordBody = Type.Object(
  {
    image_credits: Type.Integer(),
    overages: Type.Boolean(),
    period_anchor: Type.String({ format: "date-time" }),
    max_batch_size: Type.Integer(),
    proxies: Type.Boolean(),
    storage_destinations: Type.Boolean(),
    credit_thresholds: Type.Array(Type.Integer()),
  },
  {
    ...named("Plan", "An organization's effective plan."),
    examples: [
      {
        image_credits: 5000,
        overages: false,
        period_anchor: "2026-12-01T00:00:00.000Z",
        max_batch_size: 0,
        proxies: true,
        storage_destinations: true,
        credit_thresholds: [80, 100],
      },
    ],
  },
);

const OwnerKeyBody = Type.Object(
  {
    name: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], maxLength: 255 })),
    description: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], maxLength: 2000 })),
  },
  {
    ...named("OwnerKeyRequest", "Name and description of an owner key (all current and future permissions)."),
    additionalProperties: false,
    examples: [{ name: "Owner key", description: "For Acme's platform account" }],
  },
);
export { OwnerKeyBody };

export const CreateOrganizationBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: "Unique, ignoring case." }),
    external_id: Type.Optional(ExternalId),
    plan: Type.Optional(unnamed(PlanBody)),
    limits: Type.Optional(GroupLimitsBody),
    owner_key: Type.Optional(unnamed(OwnerKeyBody)),
  },
  {
    ...named("CreateOrganizationRequest", "A new organization, its plan, limits and owner key."),
    additionalProperties: false,
    examples: [
      {
        name: "Acme Corp",
        external_id: "cus_9f8e7d",
        plan: { image_credits: 5000 },
        limits: { "api-key:write": { policies: [{ quota: 40, window_seconds: 60 }] } },
        owner_key: { name: "Owner key" },
      },
    ],
  },
);
export type CreateOrganizationBody = Static<typeof CreateOrganizationBody>;

export const CreatedOrganizationBody = Type.Object(
  { organization: OrganizationRecordBody, key: CreatedKeyRecord },
  {
    ...named(
      "CreatedOrganization",
      "The new organization and its owner key, with the key's secret (only here).",
    ),
    examples: [
      {
        organization: organizationExample,
        key: (CreatedKeyRecord as { examples?: unknown[] }).examples?.[0],
      },
    ],
  },
);

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    external_id: Type.Optional(ExternalId),
    disabled: Type.Optional(
      Type.Boolean({
        description:
          "true refuses the organization's keys, connections and users (403 organization_disabled).",
      }),
    ),
  },
  {
    ...named("UpdateOrganizationRequest", "The members to change; omitted members stay."),
    additionalProperties: false,
    examples: [{ disabled: true }],
  },
);
export type UpdateOrganizationBody = Static<typeof UpdateOrganizationBody>;

export const OrganizationParams = Type.Object({
  org: Type.String({ pattern: "^org_[A-Za-z0-9]{1,64}$", description: "The organization's id." }),
});

export const ListOrganizationsQuery = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    page_start: Type.Optional(
      Type.String({ description: "pagination.next_page_start of the previous page." }),
    ),
    name_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const OrganizationList = Type.Object(
  {
    data: Type.Array(OrganizationRecordBody),
    pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
  },
  {
    ...named("OrganizationList", "A page of organizations, newest first."),
    examples: [{ data: [organizationExample], pagination: { next_page_start: null } }],
  },
);

export const CreditGrantBody = Type.Object(
  {
    credits: Type.Integer({ minimum: 1, maximum: MAX_PLAN_NUMBER, description: "Image credits to add." }),
    expires_at: Type.Optional(
      Type.Unsafe<string | null>({
        type: ["string", "null"],
        maxLength: 64,
        description: "When what is left stops counting (RFC 3339, in the future); null or omitted: never.",
        examples: ["2027-01-01T00:00:00Z"],
      }),
    ),
    reason: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], maxLength: 500 })),
  },
  {
    ...named(
      "CreditGrantRequest",
      "A top-up: credits consumed after the period's allowance, until used or expired.",
    ),
    additionalProperties: false,
    examples: [{ credits: 1000, expires_at: "2027-01-01T00:00:00Z", reason: "top-up, invoice 2026-118" }],
  },
);
export type CreditGrantBody = Static<typeof CreditGrantBody>;

const creditGrantExample = {
  id: "cgr_7Hq2LmXv9TnB4kPz1RsW3c",
  credits: 1000,
  remaining: 640,
  expires_at: "2027-01-01T00:00:00.000Z",
  reason: "top-up, invoice 2026-118",
  created_at: "2026-11-22T11:36:56.123Z",
};

export const CreditGrantRecord = Type.Object(
  {
    id: Type.String({ description: "`cgr_...` identifier." }),
    credits: Type.Integer({ description: "Credits granted." }),
    remaining: Type.Integer({ description: "Credits still usable now: 0 once used up or expired." }),
    expires_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: "date-time" }),
  },
  { ...named("CreditGrant", "A credit grant and what is left of it."), examples: [creditGrantExample] },
);

export const CreditGrantList = Type.Object(
  {
    data: Type.Array(CreditGrantRecord),
    pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
  },
  {
    ...named("CreditGrantList", "A page of an organization's credit grants, newest first."),
    examples: [{ data: [creditGrantExample], pagination: { next_page_start: null } }],
  },
);

export const PageQuery = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    page_start: Type.Optional(
      Type.String({ description: "pagination.next_page_start of the previous page." }),
    ),
  },
  { additionalProperties: false },
);
