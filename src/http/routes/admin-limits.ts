import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { groupLimitFromJson } from "../../domain/group-definitions.js";
import { policiesToJson } from "../../domain/rate-limit-policies.js";
import type { LimitOverrides } from "../../services/limit-overrides.js";
import type { GroupCatalog } from "../../services/rate-limit-groups.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import { adminActor, registerAdminGuard } from "../admin-guard.js";
import { OrganizationParams } from "../admin-schemas.js";
import {
  EffectiveLimitBody,
  GroupDefinition,
  GroupLimitBody,
  GroupParams,
  OrganizationGroupParams,
  OrganizationLimitsBody,
} from "../limit-schemas.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses, NoContent } from "../schemas.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";

export interface AdminLimitRouteOptions {
  groups: GroupCatalog;
  limitOverrides: LimitOverrides;
  serviceTokens: ServiceTokenService;
}

const tags = ["Provisioning"];
const BODY_REFUSALS = ["invalid_request", "payload_too_large", "unsupported_media_type"] as const;

/** The platform's own groups and each organization's overrides (docs/rate-limits.md). */
export async function adminLimitRoutes(app: FastifyInstance, options: AdminLimitRouteOptions): Promise<void> {
  const { groups, limitOverrides } = options;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, options.serviceTokens);
  sendNoStore(routes);

  routes.put(
    "/v1/admin/groups/:group",
    {
      schema: {
        operationId: "putGroup",
        summary: "Declare or redefine a group of the platform's",
        description:
          "A group for the platform's own routes, usable by authorize, forward-auth and the guard. Every node " +
          "uses the new definition within 2 seconds. The management groups' defaults cannot be changed here: " +
          "override them per organization.",
        tags,
        security: adminSecurity,
        params: GroupParams,
        body: GroupLimitBody,
        response: { 200: GroupDefinition, ...errorResponses(...ADMIN_REFUSALS, ...BODY_REFUSALS) },
      },
    },
    async (request) => {
      const group = await groups.put(
        request.params.group,
        groupLimitFromJson(request.body),
        adminActor(request),
      );
      return { name: group.name, policies: policiesToJson(group.policies), per: group.per };
    },
  );
  rejectOtherMethods(routes, "/v1/admin/groups/:group", ["PUT"]);

  routes.get(
    "/v1/admin/organizations/:org/limits",
    {
      schema: {
        operationId: "getOrganizationLimits",
        summary: "Every group's limit for an organization",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        response: {
          200: OrganizationLimitsBody,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found"),
        },
      },
    },
    async (request) => {
      const effective = await limitOverrides.effective(request.params.org);
      const data = Object.fromEntries(
        Object.entries(effective.groups).map(([group, limit]) => [
          group,
          { policies: policiesToJson(limit.policies), per: limit.per, source: limit.source },
        ]),
      );
      return { data, max_keys: effective.maxKeys };
    },
  );
  rejectOtherMethods(routes, "/v1/admin/organizations/:org/limits", ["GET"]);

  const one = "/v1/admin/organizations/:org/limits/:group";
  routes.put(
    one,
    {
      schema: {
        operationId: "putOrganizationLimit",
        summary: "Override one group's limit for an organization",
        description:
          "Replaces the group's limit for this organization; every node applies it within 2 seconds. The slots " +
          "already taken stay taken: a log is kept per group and window, not per quota.",
        tags,
        security: adminSecurity,
        params: OrganizationGroupParams,
        body: GroupLimitBody,
        response: {
          200: EffectiveLimitBody,
          ...errorResponses(...ADMIN_REFUSALS, ...BODY_REFUSALS, "not_found"),
        },
      },
    },
    async (request) => {
      const { org, group } = request.params;
      const limit = await limitOverrides.set(
        org,
        group,
        groupLimitFromJson(request.body),
        adminActor(request),
      );
      return { policies: policiesToJson(limit.policies), per: limit.per, source: limit.source };
    },
  );
  routes.delete(
    one,
    {
      schema: {
        operationId: "deleteOrganizationLimit",
        summary: "Remove an organization's override of one group",
        tags,
        security: adminSecurity,
        params: OrganizationGroupParams,
        response: { 204: NoContent, ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found") },
      },
    },
    async (request, reply) => {
      await limitOverrides.remove(request.params.org, request.params.group, adminActor(request));
      return reply.code(204).send(null);
    },
  );
  rejectOtherMethods(routes, one, ["PUT", "DELETE"]);
}
