import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AWS_EXTERNAL_ID_OPERATION, STORAGE_DESTINATIONS } from "../../domain/resource-families.js";
import {
  AwsExternalId,
  ListResourcesQuery,
  ResourceContent,
  ResourceIdParams,
  ResourcePage,
  ResourceRecord,
} from "../../domain/resource-schemas.js";
import type { AwsExternalIdService } from "../../services/aws-external-id.js";
import type { ResourceService, ResourceServices } from "../../services/resource-service.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";

const security = [{ basicAuth: [] }];

/**
 * The five routes of one family, written once: the guard (via `config.operation`) authenticates, checks
 * the permission and the plan, and counts the request; each handler calls one service method.
 */
function familyRoutes(app: FastifyInstance, service: ResourceService): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const { family } = service;
  const { path, operations, singular, plural } = family;
  const tags = [plural.charAt(0).toUpperCase() + plural.slice(1)];
  const params = ResourceIdParams(family);
  const record = `${path}/:id`;

  routes.post(
    path,
    {
      config: { operation: operations.create },
      schema: {
        summary: `Create a ${singular}`,
        tags,
        security,
        body: ResourceContent,
        response: { 200: ResourceRecord, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request) => service.create(callerOf(request), request.body),
  );

  routes.get(
    path,
    {
      config: { operation: operations.list },
      schema: {
        summary: `List ${plural}, newest first (disabled ones included)`,
        tags,
        security,
        querystring: ListResourcesQuery,
        response: { 200: ResourcePage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => service.list(callerOf(request), request.query),
  );

  routes.get(
    record,
    {
      config: { operation: operations.get },
      schema: {
        summary: `Retrieve a ${singular}`,
        tags,
        security,
        params,
        response: { 200: ResourceRecord, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => service.get(callerOf(request), request.params.id),
  );

  routes.post(
    record,
    {
      config: { operation: operations.update },
      schema: {
        summary: `Replace a ${singular}'s whole content`,
        tags,
        security,
        params,
        body: ResourceContent,
        response: { 200: ResourceRecord, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => service.update(callerOf(request), request.params.id, request.body),
  );

  routes.delete(
    record,
    {
      config: { operation: operations.delete },
      schema: {
        summary: `Delete a ${singular} (repeating it succeeds)`,
        tags,
        security,
        params,
        response: {
          204: { type: "null", description: `The ${singular} is deleted (or already was). No body.` },
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      await service.delete(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  rejectOtherMethods(routes, path, ["GET", "POST"]);
  rejectOtherMethods(routes, record, ["GET", "POST", "DELETE"]);
}

/** `GET /v1/storage-destinations/aws-external-id` (static, so it wins over `/:id`). */
function awsExternalIdRoute(app: FastifyInstance, awsExternalIds: AwsExternalIdService): void {
  const path = `${STORAGE_DESTINATIONS.path}/aws-external-id`;
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    path,
    {
      config: { operation: AWS_EXTERNAL_ID_OPERATION },
      schema: {
        summary: "The organization's AWS external id, for the IAM role trust policy",
        tags: ["Storage destinations"],
        security,
        response: { 200: AwsExternalId, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => awsExternalIds.get(callerOf(request)),
  );
  rejectOtherMethods(app, path, ["GET"]);
}

/** `/v1/proxies`, `/v1/storage-destinations`, `/v1/og-configs`: the same routes for every family. */
export async function resourceFamilyRoutes(
  app: FastifyInstance,
  { resources, awsExternalIds }: { resources: ResourceServices; awsExternalIds: AwsExternalIdService },
): Promise<void> {
  sendNoStore(app);
  for (const service of Object.values(resources)) familyRoutes(app, service);
  awsExternalIdRoute(app, awsExternalIds);
}
