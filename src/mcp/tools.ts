import type { Services } from "../app.js";
import { resourceTools } from "./family-tools.js";
import type { McpTool } from "./tool.js";
import { usageTools } from "./usage-tools.js";

/** Every tool `/mcp` offers. None manages API keys: keys are managed over REST and the CLI only. */
export function mcpTools(services: Services): McpTool[] {
  return [...resourceTools(services), ...usageTools(services)];
}
