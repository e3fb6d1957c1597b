import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { requireRfc3339 } from "../../domain/rfc3339.js";
import type { AuditLog } from "../../services/audit-log.js";
import { AUDIT_OPERATION } from "../../services/operations.js";
import { toAuditEntryBody } from "../audit-response.js";
import { AuditList, ListAuditQuery } from "../audit-schemas.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";

/** `GET /v1/audit`: the caller's organization's audit trail, newest first; `audit:read`. */
export async function auditRoutes(app: FastifyInstance, { audit }: { audit: AuditLog }): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  routes.get(
    "/v1/audit",
    {
      config: { operation: AUDIT_OPERATION },
      schema: {
        operationId: "listAuditEntries",
        summary: "The organization's audit trail, newest first",
        tags: ["Audit"],
        security: [{ basicAuth: [] }],
        querystring: ListAuditQuery,
        response: { 200: AuditList, ...errorResponses(400, 401, 403, 429, "database_unavailable") },
      },
    },
    async (request) => {
      const { count, page_start, since } = request.query;
      const page = await audit.list({
        orgId: callerOf(request).orgId,
        count,
        pageStart: page_start,
        since: since === undefined ? undefined : requireRfc3339(since, "/query/since"),
      });
      return {
        data: page.entries.map(toAuditEntryBody),
        pagination: { next_page_start: page.nextPageStart },
      };
    },
  );
  rejectOtherMethods(routes, "/v1/audit", ["GET"]);
}
