import type { FastifyInstance } from "fastify";
import { USAGE_OPERATION } from "../../services/operations.js";
import type { UsageService } from "../../services/usage.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { UsageReportBody } from "../platform-schemas.js";
import { errorResponses } from "../schemas.js";

const iso = (ms: number) => new Date(ms).toISOString();

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
    async (request) => {
      const report = await usage.report(callerOf(request).orgId);
      return {
        data: { hour: report.hour, day: report.day, month: report.month },
        per_billing_period: report.perBillingPeriod.map((period) => ({
          total_images: period.totalImages,
          start: iso(period.start),
          end: iso(period.end),
        })),
      };
    },
  );
  rejectOtherMethods(app, "/v1/usage", ["GET"]);
}
