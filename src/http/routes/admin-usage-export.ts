import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { exportRange } from "../../domain/usage-export-range.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import type { UsageExport } from "../../services/usage-export.js";
import { registerAdminGuard } from "../admin-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";
import { sendExport } from "../usage-export-reply.js";
import { PlatformUsageExportResponse, UsageExportQuery } from "../usage-export-schemas.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";

export interface AdminUsageExportRouteOptions {
  usageExport: UsageExport;
  serviceTokens: ServiceTokenService;
}

/** `GET /v1/admin/usage/export`: every organization's usage rows, with `external_id`, for billing. */
export async function adminUsageExportRoutes(
  app: FastifyInstance,
  { usageExport, serviceTokens }: AdminUsageExportRouteOptions,
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, serviceTokens);
  sendNoStore(routes);
  routes.get(
    "/v1/admin/usage/export",
    {
      schema: {
        operationId: "exportPlatformUsage",
        summary: "Every organization's images and decisions per hour or day, as NDJSON or CSV",
        description:
          "The organization export's rows for every organization, each with the organization's `external_id`, " +
          "ordered by organization id then time; at most 31 days per request. Streamed in constant memory.",
        tags: ["Provisioning"],
        security: adminSecurity,
        querystring: UsageExportQuery,
        response: {
          200: PlatformUsageExportResponse,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request"),
        },
      },
    },
    async (request, reply) => {
      const range = exportRange(request.query);
      return sendExport(reply, usageExport.platform(range), request.query.format, true);
    },
  );
  rejectOtherMethods(routes, "/v1/admin/usage/export", ["GET"]);
}
