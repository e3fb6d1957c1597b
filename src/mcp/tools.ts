import type { AwsExternalIdService } from "../services/aws-external-id.js";
import type { PlanService } from "../services/plans.js";
import type { ResourceServices } from "../services/resource-service.js";
import type { UsageService } from "../services/usage.js";
import { resourceTools } from "./family-tools.js";
import type { McpTool } from "./tool.js";
import { usageTools } from "./usage-tools.js";

/** Every tool `/mcp` offers. None manages API keys: keys are managed over REST and the CLI only. */
export function mcpTools(services: {
  resources: ResourceServices;
  awsExternalIds: AwsExternalIdService;
  usage: UsageService;
  plans: PlanService;
}): McpTool[] {
  return [...resourceTools(services), ...usageTools(services)];
}
