import { type Static, Type } from "typebox";
import {
  MAX_POLICIES,
  MAX_QUOTA,
  MAX_WINDOW_SECONDS,
  MIN_WINDOW_SECONDS,
} from "../domain/rate-limit-policies.js";
import { named } from "./schema-names.js";

/** The wire shapes of rate limits (docs/rate-limits.md), defined once. */

export const RatePolicyBody = Type.Object(
  {
    quota: Type.Integer({
      minimum: 1,
      maximum: MAX_QUOTA,
      description: "Requests (cost units) admitted in any window of `window_seconds`.",
    }),
    window_seconds: Type.Integer({
      minimum: MIN_WINDOW_SECONDS,
      maximum: MAX_WINDOW_SECONDS,
      description: "The sliding window's length: 1 second to 31 days.",
    }),
  },
  {
    ...named("RatePolicy", "One exact sliding window."),
    additionalProperties: false,
    examples: [{ quota: 1000, window_seconds: 3600 }],
  },
);

const Per = Type.Union([Type.Literal("organization"), Type.Literal("key")], {
  description:
    "Counted per organization (one log per window) or per key (each key its own). Default organization.",
});

export const GroupLimitBody = Type.Object(
  {
    policies: Type.Array(RatePolicyBody, {
      minItems: 1,
      maxItems: MAX_POLICIES,
      description: `One to ${MAX_POLICIES} windows; a request is admitted only when it fits every one.`,
      examples: [[{ quota: 1000, window_seconds: 3600 }]],
    }),
    per: Type.Optional(Per),
  },
  {
    ...named("GroupLimit", "A group's limit: stacked windows, counted per organization or per key."),
    additionalProperties: false,
    examples: [
      {
        policies: [
          { quota: 10, window_seconds: 1 },
          { quota: 1000, window_seconds: 3600 },
        ],
        per: "organization",
      },
    ],
  },
);
export type GroupLimitBody = Static<typeof GroupLimitBody>;

/**
 * Group name -> limit (an organization's `limits` on create, the LATCHKEY_GROUPS file). The members
 * are an unnamed copy: the validator registers a named schema once, where it is a route's whole body.
 */
export const GroupLimitsBody = Type.Record(
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Object(GroupLimitBody.properties, { additionalProperties: false }),
  {
    description: "Rate-limit overrides by group name.",
    maxProperties: 100,
  },
);

/**
 * A key's own limits: group name -> its windows, for groups counted per key (docs/rate-limits.md).
 * Unnamed members for the same reason as GroupLimitsBody's.
 */
export const KeyRateLimitsBody = Type.Record(
  Type.String({ minLength: 1, maxLength: 64 }),
  Type.Object(
    {
      policies: Type.Array(Type.Object(RatePolicyBody.properties, { additionalProperties: false }), {
        minItems: 1,
        maxItems: MAX_POLICIES,
      }),
    },
    { additionalProperties: false },
  ),
  {
    description:
      'latchkey\'s own: the key\'s own windows in groups counted per key (`"per": "key"`), each at most the ' +
      "organization's policy for the group. Omitted on update: kept; null or {}: cleared. Records carry it only when set.",
    maxProperties: 20,
    examples: [
      {
        render: {
          policies: [
            { quota: 5, window_seconds: 1 },
            { quota: 500, window_seconds: 3600 },
          ],
        },
      },
    ],
  },
);

export const GroupParams = Type.Object({
  group: Type.String({ minLength: 1, maxLength: 64, description: "A group's name." }),
});

export const OrganizationGroupParams = Type.Object({
  org: Type.String({ pattern: "^org_[A-Za-z0-9]{1,64}$", description: "The organization's id." }),
  group: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "A group's name.",
    examples: ["api-key:read"],
  }),
});

const policiesExample = [{ quota: 1000, window_seconds: 3600 }];

export const GroupDefinition = Type.Object(
  {
    name: Type.String(),
    policies: Type.Array(RatePolicyBody),
    per: Type.Union([Type.Literal("organization"), Type.Literal("key")]),
  },
  {
    ...named("GroupDefinition", "A group of the platform's and its limit."),
    examples: [{ name: "render", policies: policiesExample, per: "organization" }],
  },
);

const EffectiveLimitBody = Type.Object(
  {
    policies: Type.Array(RatePolicyBody),
    per: Type.Union([Type.Literal("organization"), Type.Literal("key")]),
    source: Type.Union([Type.Literal("default"), Type.Literal("override")], {
      description: "`override`: this organization's own; `default`: the group's.",
    }),
  },
  {
    ...named("EffectiveLimit", "A group's limit for one organization, and where it comes from."),
    examples: [{ policies: policiesExample, per: "organization", source: "override" }],
  },
);
export { EffectiveLimitBody };

export const OrganizationLimitsBody = Type.Object(
  {
    data: Type.Record(Type.String(), EffectiveLimitBody),
    max_keys: Type.Integer({ description: "Keys the organization may hold, disabled ones included." }),
  },
  {
    ...named("OrganizationLimits", "Every group's limit for one organization."),
    examples: [
      {
        data: {
          "api-key:read": {
            policies: [{ quota: 100, window_seconds: 60 }],
            per: "organization",
            source: "default",
          },
          render: { policies: policiesExample, per: "organization", source: "override" },
        },
        max_keys: 100,
      },
    ],
  },
);
