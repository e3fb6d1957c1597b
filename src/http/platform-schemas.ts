import { type Static, Type } from "typebox";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";
import { RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import { MAX_COST } from "../domain/rate-limit-policies.js";
import { ErrorBody, named } from "./schemas.js";

/** The wire shapes of the platform side (docs/platform.md), defined once like schemas.ts. */

export const AuthorizeBody = Type.Object(
  {
    authorization: Type.Union([Type.String({ maxLength: 16_384 }), Type.Null()], {
      description:
        'The Authorization header the platform received from its caller, verbatim; null or "" when there was none.',
      examples: ["Basic bGtpZF8uLi46bGtza18uLi4="],
    }),
    permission: Type.String({
      description: "The permission the operation needs.",
      examples: ["images:create"],
    }),
    group: Type.Optional(
      Type.String({
        description: "Management operation group to count the request against.",
        examples: ["proxy:read"],
      }),
    ),
    cost: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COST,
        description:
          "Slots the request takes in each window of its group (default 1), atomically: admitted only when " +
          "every window can hold them all. Needs `group`.",
        examples: [5],
      }),
    ),
    credits: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Image credits the operation consumes." }),
    ),
    client_ip: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          "The address the platform's caller connected from (IPv4 or IPv6, no port). Required for keys " +
          "with `allowed_cidrs`: without it they are refused with `403 ip_not_allowed`.",
        examples: ["203.0.113.7"],
      }),
    ),
    protocol: Type.Optional(
      Type.Union([Type.Literal("rest"), Type.Literal("mcp")], {
        description:
          "`mcp`: the decision is relayed as an MCP tool error, so it carries no rate-limit headers.",
      }),
    ),
  },
  {
    ...named("AuthorizeRequest", "May this caller do this?"),
    additionalProperties: false,
    examples: [
      {
        authorization: "Basic bGtpZF84OGhCeXd4VUpLMTJGb3NFWU8zcG5DOmxrc2tfLi4u",
        permission: "images:create",
        credits: 1,
      },
    ],
  },
);
export type AuthorizeBody = Static<typeof AuthorizeBody>;

const AuthorizedKey = Type.Object(
  {
    id: Type.String(),
    api_id: Type.String(),
    permissions: Type.Array(Type.String({ enum: [...PERMISSION_CATALOGUE] })),
    all_future_permissions: Type.Boolean(),
  },
  named("AuthorizedKey", "The key the decision was made for."),
);

export const AuthorizeDecision = Type.Object(
  {
    allowed: Type.Boolean(),
    status: Type.Integer({ description: "The status to answer the caller with: 200, 401, 403 or 429." }),
    organization_id: Type.Union([Type.String(), Type.Null()]),
    key: Type.Union([AuthorizedKey, Type.Null()]),
    headers: Type.Record(Type.String(), Type.String(), {
      description: "Headers to relay to the caller: RateLimit-*, Retry-After, x-renders-*, WWW-Authenticate.",
    }),
    error: Type.Union([ErrorBody, Type.Null()], { description: "The error body to relay when not allowed." }),
  },
  {
    ...named("AuthorizeDecision", "The decision: allowed, or the status, headers and error body to relay."),
    examples: [
      {
        allowed: true,
        status: 200,
        organization_id: "org_QH0ptbBe7WlnJxYGrHxbYS",
        key: {
          id: "key_4vJ2mQ8sT1xZ7bN3cP5dR9",
          api_id: "lkid_88hBywxUJK12FosEYO3pnC",
          permissions: ["images:create", "images:store"],
          all_future_permissions: false,
        },
        headers: { "x-renders-allowed": "50", "x-renders-consumed": "1", "x-renders-used": "1" },
        error: null,
      },
    ],
  },
);
export type AuthorizeDecision = Static<typeof AuthorizeDecision>;

const Counts = Type.Record(Type.String({ format: "date-time" }), Type.Integer(), {
  description: "Images consumed, keyed by the start of each interval (intervals without usage omitted).",
});

export const UsageReportBody = Type.Object(
  {
    data: Type.Object({
      hour: Counts,
      day: Counts,
      month: Counts,
    }),
    per_billing_period: Type.Array(
      Type.Object(
        {
          total_images: Type.Integer(),
          start: Type.String({ format: "date-time" }),
          end: Type.String({ format: "date-time" }),
        },
        named("BillingPeriodUsage", "Images consumed in one billing period."),
      ),
    ),
  },
  {
    ...named("UsageReport", "Image credits consumed per hour, day, month and billing period."),
    examples: [
      {
        data: {
          hour: { "2026-11-22T11:00:00.000Z": 3 },
          day: { "2026-11-22T00:00:00.000Z": 3 },
          month: { "2026-11-01T00:00:00.000Z": 3 },
        },
        per_billing_period: [
          { total_images: 3, start: "2026-11-01T00:00:00.000Z", end: "2026-12-01T00:00:00.000Z" },
        ],
      },
    ],
  },
);

/** Known group names, for the authorize body's error message. */
export const GROUP_NAMES = RATE_LIMIT_GROUPS.join(", ");
