import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import { hoistNamedSchemas } from "./openapi-components.js";
import { METADATA_FILTER_PARAMETER } from "./schemas.js";
import { packageJson } from "../version.js";
import { setDocsSecurityHeaders } from "./docs-security-headers.js";

/** `createApiKey`, `listApiKeys`, `authorize`: lower camel case, a verb first. */
const OPERATION_ID = /^[a-z][A-Za-z0-9]*$/;

/**
 * Every published route names its operation: generators derive method names from `operationId`, so it
 * must exist, follow one style and never change. A route without one fails at start, naming itself.
 */
function requireOperationId(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide) return;
  const where = `${String(route.method)} ${route.url}`;
  if (!schema.operationId) {
    throw new Error(`${where}: published routes need schema.operationId (or schema.hide: true).`);
  }
  if (!OPERATION_ID.test(schema.operationId)) {
    throw new Error(`${where}: operationId "${schema.operationId}" is not lower camel case.`);
  }
}

/** Adds the list's `metadata[<name>]` filters, which no query-string property can describe. */
function withMetadataFilter<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { parameters?: unknown[] }>> }).paths;
  const list = paths?.["/v1/api-keys"]?.get;
  if (list) list.parameters = [...(list.parameters ?? []), METADATA_FILTER_PARAMETER];
  return document;
}

/**
 * Publishes the route schemas as OpenAPI 3.1 at `/openapi.json` and a browsable reference at `/docs`.
 * Schemas made with `named()` become `#/components/schemas/<name>`; see src/http/README.md.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const { version, license } = packageJson();
  app.addHook("onRoute", requireOperationId);
  await app.register(swagger, {
    // Named schemas nested in a route schema become components under their own name, not `def-N`.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    // ...and so do the named schemas at the top of a body or response.
    transformObject: (document) =>
      withMetadataFilter(hoistNamedSchemas("openapiObject" in document ? document.openapiObject : {})),
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "latchkey",
        version,
        description: "API-key management with exact per-organization management rate limits.",
        license: { name: license, identifier: license },
      },
      servers: [
        { url: "/", description: "The latchkey server that serves this document." },
        { url: "http://127.0.0.1:8080", description: "A local server with the default PORT and HOST." },
      ],
      tags: [
        { name: "API keys", description: "Create, list, retrieve, update and disable keys." },
        { name: "Platform", description: "For the platform's services: may this caller do this?" },
        { name: "Usage", description: "What an organization consumed." },
        {
          name: "Provisioning",
          description:
            "For the platform's own code (a service token with the `provision` scope): organizations, plans, " +
            "limits, credits, owner-key recovery.",
        },
        { name: "Proxies", description: "Proxies the organization's requests go through." },
        { name: "Storage destinations", description: "Where the organization's images are stored." },
        { name: "OG configurations", description: "Open Graph image configurations." },
        { name: "Audit", description: "Who changed what, when: the audit trail (`audit:read`)." },
        {
          name: "Webhooks",
          description:
            "Events sent to the organization's endpoints, signed by the Standard Webhooks rules (docs/webhooks.md).",
        },
        {
          name: "Secret scanning",
          description: "Reports of leaked secrets from GitHub's secret scanning partner program.",
        },
      ],
      components: {
        securitySchemes: {
          basicAuth: {
            type: "http",
            scheme: "basic",
            description: "A key's `api_id` as the user name and its `api_key` as the password.",
          },
          serviceToken: {
            type: "apiKey",
            in: "header",
            name: "X-Latchkey-Service-Token",
            description: "A service token (`latchkey service-token create`).",
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", uiHooks: { onRequest: setDocsSecurityHeaders } });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
