import { type Static, Type } from "typebox";
import { PERMISSION_CATALOGUE } from "../domain/permissions.js";
import { RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import { ErrorBody } from "./schemas.js";

/** The wire shapes of the platform side (DESIGN.md section 10), defined once like schemas.ts. */

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
    credits: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Image credits the operation consumes." }),
    ),
    protocol: Type.Optional(
      Type.Union([Type.Literal("rest"), Type.Literal("mcp")], {
        description:
          "`mcp`: the decision is relayed as an MCP tool error, so it carries no rate-limit headers.",
      }),
    ),
  },
  { additionalProperties: false, description: "May this caller do this?" },
);
export type AuthorizeBody = Static<typeof AuthorizeBody>;

export const AuthorizeDecision = Type.Object({
  allowed: Type.Boolean(),
  status: Type.Integer({ description: "The status to answer the caller with: 200, 401, 403 or 429." }),
  organization_id: Type.Union([Type.String(), Type.Null()]),
  key: Type.Union([
    Type.Object({
      id: Type.String(),
      api_id: Type.String(),
      permissions: Type.Array(Type.String({ enum: [...PERMISSION_CATALOGUE] })),
      all_future_permissions: Type.Boolean(),
    }),
    Type.Null(),
  ]),
  headers: Type.Record(Type.String(), Type.String(), {
    description: "Headers to relay to the caller: RateLimit-*, Retry-After, x-renders-*, WWW-Authenticate.",
  }),
  error: Type.Union([ErrorBody, Type.Null()], { description: "The error body to relay when not allowed." }),
});
export type AuthorizeDecision = Static<typeof AuthorizeDecision>;

const Counts = Type.Record(Type.String({ format: "date-time" }), Type.Integer());

export const UsageReportBody = Type.Object({
  data: Type.Object({
    hour: Counts,
    day: Counts,
    month: Counts,
  }),
  per_billing_period: Type.Array(
    Type.Object({
      total_images: Type.Integer(),
      start: Type.String({ format: "date-time" }),
      end: Type.String({ format: "date-time" }),
    }),
  ),
});

/** Known group names, for the authorize body's error message. */
export const GROUP_NAMES = RATE_LIMIT_GROUPS.join(", ");
