import { Type } from "typebox";
import type { PlanService } from "../services/plans.js";
import { USAGE_OPERATION } from "../services/operations.js";
import type { UsageService } from "../services/usage.js";
import { defineTool, type McpTool } from "./tool.js";

const NoArguments = Type.Object({}, { additionalProperties: false });

/** `check_usage` and `get_max_batch_size`: the plan as `GET /v1/usage` sees it, `usage:read`, not limited. */
export function usageTools(deps: { usage: UsageService; plans: PlanService }): McpTool[] {
  return [
    defineTool({
      name: "check_usage",
      description:
        "Image credits of the current billing period: images_used, images_allowed, overages_enabled and " +
        "next_reset (RFC 3339, when the credits are restored). Needs usage:read.",
      inputSchema: NoArguments,
      operation: USAGE_OPERATION,
      async run(caller) {
        const period = await deps.usage.currentPeriod(caller.orgId);
        return {
          images_used: period.used,
          images_allowed: period.allowed,
          overages_enabled: period.overages,
          next_reset: new Date(period.resetsAt).toISOString(),
        };
      },
    }),
    defineTool({
      name: "get_max_batch_size",
      description:
        "The largest batch of images one request may create under the organization's plan " +
        "(0: no batching). Needs usage:read.",
      inputSchema: NoArguments,
      operation: USAGE_OPERATION,
      async run(caller) {
        const plan = await deps.plans.get(caller.orgId);
        return { max_batch_size: plan.maxBatchSize };
      },
    }),
  ];
}
