import { createConfig, lintFromString, type NormalizedProblem } from "@redocly/openapi-core";
import Fastify from "fastify";
import { expect, test } from "vitest";
import { registerOpenApi } from "../../src/http/openapi.js";
import { buildTestApp } from "../helpers/build-test-app.js";
import { githubScanner, writeScanningKeys } from "../helpers/github-scanner.js";
import { tempDir } from "../helpers/processes.js";

/**
 * The published OpenAPI document, as generators see it: it passes `redocly lint` with the strict
 * recommended rules, names every operation and every shape, and shows examples of every body.
 */

type Media = { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> };
type Operation = {
  operationId?: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

async function servedDocument(
  env: Record<string, string> = {},
): Promise<{ text: string; document: OpenApiDocument }> {
  const { app } = await buildTestApp({ env });
  const response = await app.inject({ method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  return { text: response.body, document: response.json() };
}

function operations(document: OpenApiDocument): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [`${method} ${path}`, operation]),
  );
}

/**
 * redocly's `recommended-strict` ruleset: every rule of `recommended` (servers, license, operationId,
 * unique operation ids, examples valid against their schemas, ...) with warnings raised to errors.
 */
async function lint(text: string): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended-strict"] });
  const problems: NormalizedProblem[] = await lintFromString({
    source: text,
    absoluteRef: "openapi.json",
    config,
  });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
}

test("the served /openapi.json passes redocly lint (recommended-strict) without a problem", async () => {
  const { text } = await servedDocument();
  expect(await lint(text)).toEqual([]);
}, 30_000);

test("with LATCHKEY_SECRET_SCANNING_KEYS set, the secret scanning operation is published and passes the lint too", async () => {
  const keysFile = writeScanningKeys(tempDir(), githubScanner());
  const { text, document } = await servedDocument({ LATCHKEY_SECRET_SCANNING_KEYS: keysFile });
  expect(document.paths["/v1/secret-scanning/github"]?.post?.operationId).toBe("reportLeakedSecrets");
  expect(await lint(text)).toEqual([]);
}, 30_000);

test("the lint catches an example that does not fit its schema (so the test above can fail)", async () => {
  const { document } = await servedDocument();
  const create = document.paths["/v1/api-keys"]?.post as Operation;
  (create.requestBody?.content["application/json"] as Media).example = { permissions: "images:create" };
  expect((await lint(JSON.stringify(document))).join("\n")).toContain("no-invalid-media-type-examples");
}, 30_000);

test("every operation has a unique, lower-camel-case operationId", async () => {
  const { document } = await servedDocument();
  const ids = operations(document).map(([, operation]) => operation.operationId);
  expect(ids.length).toBeGreaterThanOrEqual(7);
  for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(
    expect.arrayContaining([
      "createApiKey",
      "listApiKeys",
      "getApiKey",
      "updateApiKey",
      "disableApiKey",
      "authorize",
      "getUsage",
    ]),
  );
});

test("a published route without an operationId stops the server at start, naming the route", async () => {
  const app = Fastify();
  await registerOpenApi(app);
  expect(() => app.get("/v1/things", { schema: { summary: "List things" } }, async () => [])).toThrow(
    /GET \/v1\/things: published routes need schema.operationId/,
  );
  // Hidden routes (health, 405 catch-alls) need none.
  expect(() => app.get("/v1/hidden", { schema: { hide: true } }, async () => [])).not.toThrow();
  await app.close();
});

test("every body and every response is a named component schema with an example", async () => {
  const { document } = await servedDocument();
  expect(Object.keys(document.components.schemas)).toEqual(
    expect.arrayContaining([
      "ApiKeyRequest",
      "ApiKeyRecord",
      "CreatedApiKey",
      "ApiKeyList",
      "Pagination",
      "Permission",
      "ErrorBody",
      "ValidationError",
      "AuthorizeRequest",
      "AuthorizeDecision",
      "UsageReport",
    ]),
  );
  const anonymous: string[] = [];
  const withoutExample: string[] = [];
  for (const [name, operation] of operations(document)) {
    const media = [
      ...Object.entries(operation.requestBody?.content ?? {}).map(
        ([type, m]) => [`${name} request ${type}`, m] as const,
      ),
      ...Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(([type, m]) => [`${name} ${status} ${type}`, m] as const),
      ),
    ];
    for (const [where, m] of media) {
      if (!m.schema?.$ref?.startsWith("#/components/schemas/")) anonymous.push(where);
      if (m.example === undefined && m.examples === undefined) withoutExample.push(where);
    }
  }
  expect(anonymous).toEqual([]);
  expect(withoutExample).toEqual([]);
});

test("each error status documents an example body of each of its codes", async () => {
  const { document } = await servedDocument();
  const update = document.paths["/v1/api-keys/{id}"]?.post as Operation;
  const forbidden = update.responses["403"]?.content?.["application/json"]?.examples ?? {};
  expect(Object.keys(forbidden).sort()).toEqual(["insufficient_authority", "missing_permission"]);
  expect(forbidden.missing_permission?.value).toEqual({
    statusCode: 403,
    error: "Forbidden",
    message: "This operation requires the api_keys:create_update permission.",
    code: "missing_permission",
  });
  const authorize = document.paths["/v1/authorize"]?.post as Operation;
  expect(Object.keys(authorize.responses["401"]?.content?.["application/json"]?.examples ?? {})).toEqual([
    "invalid_service_token",
  ]);
  for (const [, operation] of operations(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400) continue;
      for (const example of Object.values(response.content?.["application/json"]?.examples ?? {})) {
        expect(example.value).toMatchObject({ statusCode: Number(status) });
      }
    }
  }
});

test("the document declares its servers, license and version", async () => {
  const { document } = await servedDocument();
  const { info, servers } = document as unknown as {
    info: { version: string; license: { name: string } };
    servers: { url: string }[];
  };
  expect(info.license.name).toBe("MIT");
  expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(servers.map((server) => server.url)).toContain("/");
});

test("each resource family's bodies are examples of that family, not copies of another's", async () => {
  const { document } = await servedDocument();
  const exampleOf = (operationId: string) => {
    const operation = operations(document).find(
      ([, candidate]) => candidate.operationId === operationId,
    )?.[1];
    const body = operation?.requestBody?.content["application/json"];
    return JSON.stringify(body?.example ?? body?.examples ?? document.components.schemas);
  };
  const proxy = exampleOf("createProxy");
  const destination = exampleOf("createStorageDestination");
  const ogConfig = exampleOf("createOgConfig");
  expect(new Set([proxy, destination, ogConfig]).size).toBe(3);
  expect(destination).toContain("bucket");
  expect(ogConfig).toContain("template_id");
});
