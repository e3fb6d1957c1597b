import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { exportRange } from "../../domain/usage-export-range.js";
import { USAGE_OPERATION } from "../../services/operations.js";
import type { UsageExport } from "../../services/usage-export.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";
import { sendExport } from "../usage-export-reply.js";
import { UsageExportQuery, UsageExportResponse } from "../usage-export-schemas.js";

/** `GET /v1/usage/export`: the caller's organization's usage rows, streamed; `usage:read`, not rate-limited. */
export async function usageExportRoutes(
  app: FastifyInstance,
  { usageExport }: { usageExport: UsageExport },
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  routes.get(
    "/v1/usage/export",
    {
      config: { operation: USAGE_OPERATION },
      schema: {
        operationId: "exportUsage",
        summary: "The organization's images and decisions per hour or day, as NDJSON or CSV",
        description:
          "For billing: one row per interval with something recorded, oldest first, at most 31 days per request. " +
          "Decisions are those of authorize and forward-auth; each node writes its counts every few seconds.",
        tags: ["Usage"],
        security: [{ basicAuth: [] }],
        querystring: UsageExportQuery,
        response: {
          200: UsageExportResponse,
          ...errorResponses("invalid_request", "unauthorized", "missing_permission", "database_unavailable"),
        },
      },
    },
    async (request, reply) => {
      const range = exportRange(request.query);
      const rows = usageExport.organization(callerOf(request).orgId, range);
      return sendExport(reply, rows, request.query.format, false);
    },
  );
  rejectOtherMethods(routes, "/v1/usage/export", ["GET"]);
}
