import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  AWS_EXTERNAL_ID_OPERATION,
  type ResourceFamily,
  type ResourceFamilyName,
  STORAGE_DESTINATIONS,
} from "../../domain/resource-families.js";
import {
  AwsExternalId,
  ListResourcesQuery,
  ResourceContent,
  ResourceIdParams,
  ResourcePage,
  ResourceRecord,
} from "../../domain/resource-schemas.js";
import type { AwsExternalIdService } from "../../services/aws-external-id.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { ResourceService, ResourceServices } from "../../services/resource-service.js";
import { IdempotencyKeyHeaders, idempotentCreate } from "../idempotency-key.js";
import { callerOf } from "../management-guard.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses, named } from "../schemas.js";

const security = [{ basicAuth: [] }];

/** What each family's records look like in the API reference: a content of its own per family. */
const EXAMPLES: Record<ResourceFamilyName, { id: string; content: { name: string; settings: object } }> = {
  proxies: {
    id: "prx_4vJ2mQ8sT1xZ7bN3cP5dR9",
    content: { name: "eu-west egress", settings: { url: "http://proxy.internal:3128", region: "eu-west-1" } },
  },
  storage_destinations: {
    id: "dst_7kQ3wN9xB2mR5tY8cL1vZ4",
    content: {
      name: "renders bucket",
      settings: {
        provider: "s3",
        bucket: "acme-renders",
        region: "eu-west-1",
        role_arn: "arn:aws:iam::123456789012:role/latchkey-renders",
      },
    },
  },
  og_configs: {
    id: "ogc_2pX8nC4vM6tQ1zL9bR3wK7",
    content: { name: "blog cards", settings: { template_id: "t-blog-card", width: 1200, height: 630 } },
  },
};

/**
 * The domain schemas, published once per family under the family's names (`ProxyRecord`, ...) so that
 * each carries its own examples. Shallow copies, so that the MCP tool schemas and the services'
 * validator keep the anonymous originals. Built once per family: the validator knows a schema by its
 * `$id`, and a second object under the same `$id` (a second app in one process) would be refused.
 */
function familySchemas(family: ResourceFamily) {
  let schemas = SCHEMAS.get(family.name);
  if (!schemas) {
    schemas = buildFamilySchemas(family);
    SCHEMAS.set(family.name, schemas);
  }
  return schemas;
}

const SCHEMAS = new Map<ResourceFamilyName, ReturnType<typeof buildFamilySchemas>>();

function buildFamilySchemas(family: ResourceFamily) {
  const { id, content } = EXAMPLES[family.name];
  const prefix = family.singular
    .split(" ")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
  const record = {
    id,
    ...content,
    enabled: true,
    created_at: "2026-11-22T11:36:56.123Z",
    updated_at: "2026-11-22T11:36:56.123Z",
  };
  return {
    content: {
      ...ResourceContent,
      ...named(`${prefix}Content`, `The full content of a ${family.singular} (create and update).`),
      examples: [content],
    },
    record: { ...ResourceRecord, ...named(`${prefix}Record`, `A ${family.singular}.`), examples: [record] },
    page: {
      ...ResourcePage,
      ...named(`${prefix}Page`, `One page of ${family.plural}, newest first, disabled ones included.`),
      examples: [{ data: [record], pagination: { next_page_start: null } }],
    },
  };
}

const ExternalIdBody = {
  ...AwsExternalId,
  ...named("AwsExternalId", "The organization's external id for the IAM role trust policy."),
  examples: [{ external_id: "5f0c2e9a-3b7d-4c1e-9a8f-2d6b4e1c7a90" }],
};

/** `create_proxy` -> `createProxy`: the MCP tool's name, as a stable OpenAPI operationId. */
function operationId(toolName: string): string {
  return toolName.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The five routes of one family, written once: the guard (via `config.operation`) authenticates, checks
 * the permission and the plan, and counts the request; each handler calls one service method.
 */
function familyRoutes(app: FastifyInstance, service: ResourceService, idempotency: IdempotentCreates): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const { family } = service;
  const { path, operations, singular, plural, tools } = family;
  const tags = [plural.charAt(0).toUpperCase() + plural.slice(1)];
  const params = ResourceIdParams(family);
  const record = `${path}/:id`;
  const { content: ContentBody, record: RecordBody, page: PageBody } = familySchemas(family);

  routes.post(
    path,
    {
      config: { operation: operations.create },
      schema: {
        operationId: operationId(tools.create),
        summary: `Create a ${singular}`,
        tags,
        security,
        headers: IdempotencyKeyHeaders,
        body: ContentBody,
        response: {
          200: RecordBody,
          ...errorResponses(400, 401, 403, 409, 413, 415, 429, "database_unavailable"),
        },
      },
    },
    async (request, reply) =>
      idempotentCreate(idempotency, request, reply, false, (record) =>
        service.create(callerOf(request), request.body, record),
      ),
  );

  routes.get(
    path,
    {
      config: { operation: operations.list },
      schema: {
        operationId: operationId(tools.list),
        summary: `List ${plural}, newest first (disabled ones included)`,
        tags,
        security,
        querystring: ListResourcesQuery,
        response: { 200: PageBody, ...errorResponses(400, 401, 403, 429, "database_unavailable") },
      },
    },
    async (request) => service.list(callerOf(request), request.query),
  );

  routes.get(
    record,
    {
      config: { operation: operations.get },
      schema: {
        operationId: operationId(tools.get),
        summary: `Retrieve a ${singular}`,
        tags,
        security,
        params,
        response: { 200: RecordBody, ...errorResponses(400, 401, 403, 404, 429, "database_unavailable") },
      },
    },
    async (request) => service.get(callerOf(request), request.params.id),
  );

  routes.post(
    record,
    {
      config: { operation: operations.update },
      schema: {
        operationId: operationId(tools.update),
        summary: `Replace a ${singular}'s whole content`,
        tags,
        security,
        params,
        body: ContentBody,
        response: {
          200: RecordBody,
          ...errorResponses(400, 401, 403, 404, 413, 415, 429, "database_unavailable"),
        },
      },
    },
    async (request) => service.update(callerOf(request), request.params.id, request.body),
  );

  routes.delete(
    record,
    {
      config: { operation: operations.delete },
      schema: {
        operationId: operationId(tools.delete),
        summary: `Delete a ${singular} (repeating it succeeds)`,
        tags,
        security,
        params,
        response: {
          204: { type: "null", description: `The ${singular} is deleted (or already was). No body.` },
          ...errorResponses(400, 401, 403, 404, 429, "database_unavailable"),
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
        operationId: "getAwsExternalId",
        summary: "The organization's AWS external id, for the IAM role trust policy",
        tags: ["Storage destinations"],
        security,
        response: { 200: ExternalIdBody, ...errorResponses(401, 403, 429, "database_unavailable") },
      },
    },
    async (request) => awsExternalIds.get(callerOf(request)),
  );
  rejectOtherMethods(app, path, ["GET"]);
}

/** `/v1/proxies`, `/v1/storage-destinations`, `/v1/og-configs`: the same routes for every family. */
export async function resourceFamilyRoutes(
  app: FastifyInstance,
  {
    resources,
    awsExternalIds,
    idempotency,
  }: { resources: ResourceServices; awsExternalIds: AwsExternalIdService; idempotency: IdempotentCreates },
): Promise<void> {
  sendNoStore(app);
  for (const service of Object.values(resources)) familyRoutes(app, service, idempotency);
  awsExternalIdRoute(app, awsExternalIds);
}
