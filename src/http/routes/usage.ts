import type { FastifyInstance } from "fastify";
import { USAGE_OPERATION } from "../../services/operations.js";
import type { UsageService } from "../../services/usage.js";
import { usageJson } from "../admin-responses.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { UsageReportBody } from "../platform-schemas.js";
import { errorResponses } from "../schemas.js";

/** `GET /v1/usage`: what the caller's organization consumed; `usage:read`, not rate-limited. */
export async function usageRoutes(app: FastifyInstance, { usage }: { usage: UsageService }): Promise<void> {
  sendNoStore(app);
  app.get(
    "/v1/usage",
    {
      config: { operation: USAGE_OPERATION },
      schema: {
        operationId: "getUsage",
        summary: "Image credits consumed per hour, day, month and billing period",
        tags: ["Usage"],
        security: [{ basicAuth: [] }],
        response: {
          200: UsageReportBody,
          ...errorResponses("unauthorized", "missing_permission", "database_unavailable"),
        },
      },
    },
    async (request) => usageJson(await usage.report(callerOf(request).orgId)),
  );
  rejectOtherMethods(app, "/v1/usage", ["GET"]);
}
