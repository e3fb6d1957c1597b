import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Clock } from "../../domain/clock.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { PlanService } from "../../services/plans.js";
import type { Provisioning } from "../../services/provisioning.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import type { UsageService } from "../../services/usage.js";
import type { IdempotentResponse } from "../../store/idempotency-store.js";
import type { ApiKeyRecord } from "../../store/key-store.js";
import { adminActor, adminIdempotentCreate, registerAdminGuard } from "../admin-guard.js";
import { planJson, usageJson } from "../admin-responses.js";
import { OrganizationParams, OwnerKeyBody, PlanBody, PlanRecordBody } from "../admin-schemas.js";
import { IdempotencyKeyHeaders } from "../idempotency-key.js";
import { toKeyResponse } from "../key-response.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { UsageReportBody } from "../platform-schemas.js";
import { CreatedKeyRecord, errorResponses } from "../schemas.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";

export interface AdminDetailRouteOptions {
  provisioning: Provisioning;
  plans: PlanService;
  usage: UsageService;
  serviceTokens: ServiceTokenService;
  idempotency: IdempotentCreates;
  clock: Clock;
}

const tags = ["Provisioning"];
const BODY_REFUSALS = ["invalid_request", "payload_too_large", "unsupported_media_type"] as const;

/** An organization's plan, owner-key recovery and usage, for the platform (docs/provisioning.md). */
export async function adminOrganizationDetailRoutes(
  app: FastifyInstance,
  options: AdminDetailRouteOptions,
): Promise<void> {
  const { provisioning, plans, usage, idempotency, clock } = options;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  registerAdminGuard(app, options.serviceTokens);
  sendNoStore(routes);

  const plan = "/v1/admin/organizations/:org/plan";
  routes.get(
    plan,
    {
      schema: {
        operationId: "getOrganizationPlan",
        summary: "An organization's effective plan",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        response: {
          200: PlanRecordBody,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found"),
        },
      },
    },
    async (request) => {
      await provisioning.get(request.params.org);
      return planJson(await plans.get(request.params.org));
    },
  );
  routes.put(
    plan,
    {
      schema: {
        operationId: "replaceOrganizationPlan",
        summary: "Replace an organization's plan",
        description:
          "A full replacement: omitted members return to the deployment's defaults. `period_anchor` moves " +
          "the billing periods. Every node uses the new plan from the next request on.",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        body: PlanBody,
        response: {
          200: PlanRecordBody,
          ...errorResponses(...ADMIN_REFUSALS, ...BODY_REFUSALS, "not_found"),
        },
      },
    },
    async (request) =>
      planJson(await provisioning.replacePlan(request.params.org, request.body, adminActor(request))),
  );
  rejectOtherMethods(routes, plan, ["GET", "PUT"]);

  const ownerKeys = "/v1/admin/organizations/:org/owner-keys";
  routes.post(
    ownerKeys,
    {
      schema: {
        operationId: "createOwnerKey",
        summary: "Create a new owner key (recovery)",
        description:
          "An owner key (all current and future permissions) for an organization whose owner lost theirs; " +
          "its secret is in this answer only. Audited as `api_key.create` by `service_token:<id>`.",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        headers: IdempotencyKeyHeaders,
        body: OwnerKeyBody,
        response: {
          201: CreatedKeyRecord,
          ...errorResponses(
            ...ADMIN_REFUSALS,
            ...BODY_REFUSALS,
            "not_found",
            "key_quota_exceeded",
            "idempotency_key_reused",
            "idempotency_key_in_use",
          ),
        },
      },
    },
    async (request, reply) => {
      const shape = ({ key, secret }: { key: ApiKeyRecord; secret: string }) => ({
        ...toKeyResponse(key, clock.now()),
        api_key: secret,
      });
      const answer = await adminIdempotentCreate(
        idempotency,
        request,
        reply,
        true,
        async (keep?: (r: ReturnType<typeof shape>) => IdempotentResponse) => {
          const created = await provisioning.createOwnerKey(
            request.params.org,
            request.body,
            adminActor(request),
            keep && ((made) => keep(shape(made))),
          );
          return shape(created);
        },
      );
      return reply.code(201).send(answer);
    },
  );
  rejectOtherMethods(routes, ownerKeys, ["POST"]);

  const usagePath = "/v1/admin/organizations/:org/usage";
  routes.get(
    usagePath,
    {
      schema: {
        operationId: "getOrganizationUsage",
        summary: "An organization's usage (its GET /v1/usage)",
        tags,
        security: adminSecurity,
        params: OrganizationParams,
        response: {
          200: UsageReportBody,
          ...errorResponses(...ADMIN_REFUSALS, "invalid_request", "not_found"),
        },
      },
    },
    async (request) => {
      await provisioning.get(request.params.org);
      return usageJson(await usage.report(request.params.org));
    },
  );
  rejectOtherMethods(routes, usagePath, ["GET"]);
}
