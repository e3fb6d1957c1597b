import { type Static, Type } from "typebox";
import {
  MAX_POLICIES,
  MAX_QUOTA,
  MAX_WINDOW_SECONDS,
  MIN_WINDOW_SECONDS,
} from "../domain/rate-limit-policies.js";
import { named } from "./schemas.js";

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

/** Group name -> limit (an organization's `limits` on create, the LATCHKEY_GROUPS file). */
export const GroupLimitsBody = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), GroupLimitBody, {
  description: "Rate-limit overrides by group name.",
  maxProperties: 100,
});
