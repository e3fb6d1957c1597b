import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Clock } from "../../domain/clock.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { CreatedOrganization, Provisioning } from "../../services/provisioning.js";
import type { IdempotentResponse } from "../../store/idempotency-store.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import { adminActor, adminIdempotentCreate, registerAdminGuard } from "../admin-guard.js";
import { organizationJson } from "../admin-responses.js";
import {
  CreatedOrganizationBody,
  CreateOrganizationBody,
  ListOrganizationsQuery,
  OrganizationList,
  OrganizationParams,
  OrganizationRecordBody,
  UpdateOrganizationBody,
} from "../admin-schemas.js";
import { IdempotencyKeyHeaders } from "../idempotency-key.js";
import { toKeyResponse } from "../key-response.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";

export interface AdminRouteOptions {
  provisioning: Provisioning;
  serviceTokens: ServiceTokenService;
  idempotency: IdempotentCreates;
  clock: Clock;
}

/** What every admin route may answer besides its own refusals. */
export const ADMIN_REFUSALS = ["invalid_service_token", "missing_scope", "database_unavailable"] as const;
export const adminSecurity = [{ serviceToken: [] }];
const tags = ["Provisioning"];

/** `/v1/admin/organizations`: the platform creates, finds, renames and disables organizations. */
export async function adminOrganizationRoutes(
  app: FastifyInstance,
  options: AdminRouteOptions,
): Promise<void> {
  const { provisioning, idempotency, clock } = options;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, options.serviceTokens);
  sendNoStore(routes);

  routes.post(
    "/v1/admin/organizations",
    {
      schema: {
        operationId: "createOrganization",
        summary: "Create an organization with its plan, limits and owner key",
        description:
          "The owner key's secret is in this answer only. Counted against no organization's group.",
        tags,
        security: adminSecurity,
        headers: IdempotencyKeyHeaders,
        body: CreateOrganizationBody,
        response: {
          201: CreatedOrganizationBody,
          ...errorResponses(
            ...ADMIN_REFUSALS,
            "invalid_request",
            "organization_name_taken",
            "external_id_taken",
            "idempotency_key_reused",
            "idempotency_key_in_use",
            "payload_too_large",
            "unsupported_media_type",
          ),
        },
      },
    },
    async (request, reply) => {
      const shape = (created: CreatedOrganization) => ({
        organization: organizationJson(created.organization),
        key: { ...toKeyResponse(created.key, clock.now()), api_key: created.secret },
      });
      // The answer holds the owner key's secret: kept sealed for the Idempotency-Key's window.
      const answer = await adminIdempotentCreate(
        idempotency,
        request,
        reply,
        true,
        async (keep?: (r: ReturnType<typeof shape>) => IdempotentResponse) => {
          return shape(
            await provisioning.create(
              request.body,
              adminActor(request),
              keep && ((created) => keep(shape(created))),
            ),
          );
        },
      );
      return reply.code(201).send(answer);
    },
  );

  routes.get(
    "/v1/admin/organizations",
    {
      schema: {
        operationId: "listOrganizations",
        summary: "List organizations, newest first",
        description: "Filter by `name_prefix` or find one by the platform's `external_id`.",
        tags,
        security: adminSecurity,
        querystring: ListOrganizationsQuery,
        response: { 200: OrganizationList, ...errorResponses(...ADMIN_REFUSALS, "invalid_request") },
      },
    },
    async (request) => {
      const { count = 10, page_start, name_prefix, external_id } = request.query;
      const page = await provisioning.list({
        count,
        pageStart: page_start,
        namePrefix: name_prefix,
        externalId: external_id,
      });
      return {
        data: page.organizations.map(organizationJson),
        pagination: { next_page_start: page.nextPageStart },
      };
    },
  );
  rejectOtherMethods(routes, "/v1/admin/organizations", ["GET", "POST"]);

  routes.get(
    "/v1/admin/organizations/:org",
    {
      schema: {
        operationId: "getOrganization",
        summary: "Retrieve an organization",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        response: {
          200: OrganizationRecordBody,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found"),
        },
      },
    },
    async (request) => organizationJson(await provisioning.get(request.params.org)),
  );

  routes.patch(
    "/v1/admin/organizations/:org",
    {
      schema: {
        operationId: "updateOrganization",
        summary: "Rename, re-identify, disable or enable an organization",
        description:
          "Only the members sent change. `disabled: true` refuses the organization's keys, OAuth connections " +
          "and console users with 403 organization_disabled from the next request on, on every node; its data " +
          "is kept, and `disabled: false` restores everything.",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        body: UpdateOrganizationBody,
        response: {
          200: OrganizationRecordBody,
          ...errorResponses(
            ...ADMIN_REFUSALS,
            "invalid_request",
            "not_found",
            "organization_name_taken",
            "external_id_taken",
            "payload_too_large",
            "unsupported_media_type",
            "service_unavailable",
          ),
        },
      },
    },
    async (request) =>
      organizationJson(await provisioning.update(request.params.org, request.body, adminActor(request))),
  );
  rejectOtherMethods(routes, "/v1/admin/organizations/:org", ["GET", "PATCH"]);
}
