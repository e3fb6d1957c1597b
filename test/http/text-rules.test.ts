import { expect, onTestFinished, test } from "vitest";
import { LatchkeyError } from "../../src/domain/errors.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import { buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { callTool, connectMcp } from "../mcp/mcp-client.js";

// Every string latchkey stores refuses NUL and lone surrogates with 400 naming the field, and no member
// may be named __proto__, constructor or prototype: over REST, MCP and the services the CLI calls, on
// SQLite and on PostgreSQL (where a NUL used to be a 500).

/** Raw JSON, so that escapes such as \u0000 and \ud800 reach the server exactly as a client sent them. */
async function post(testApp: TestApp, owner: TestKey, url: string, json: string) {
  const response = await testApp.app.inject({
    method: "POST",
    url,
    headers: { ...owner.headers, "content-type": "application/json" },
    payload: json,
  });
  return { status: response.statusCode, body: response.json<Record<string, unknown>>() };
}

function expectRefused(answer: { status: number; body: Record<string, unknown> }, path: string) {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ statusCode: 400, code: "invalid_request" });
  expect(answer.body.message).toContain(path);
  expect(answer.body.validation_errors).toEqual([expect.objectContaining({ path })]);
}

const keyCases: Array<[label: string, json: string, path: string]> = [
  ["a NUL in a key's name", '{"name":"a\\u0000b","permissions":[]}', "/name"],
  ["a NUL in a key's description", '{"description":"x\\u0000","permissions":[]}', "/description"],
  ["a lone high surrogate in a key's name", '{"name":"caf\\ud800","permissions":[]}', "/name"],
  [
    "a lone low surrogate in a key's description",
    '{"description":"\\udc00x","permissions":[]}',
    "/description",
  ],
];

const proxyCases: Array<[label: string, json: string, path: string]> = [
  ["a NUL in a family record's name", '{"name":"edge\\u0000"}', "/name"],
  [
    "a NUL in a string inside settings",
    '{"name":"edge","settings":{"url":"http://x\\u0000"}}',
    "/settings/url",
  ],
  [
    "a lone surrogate deep in settings",
    '{"name":"edge","settings":{"a":[{"b":"\\ud83d"}]}}',
    "/settings/a/0/b",
  ],
  [
    "a member named __proto__ in settings",
    '{"name":"edge","settings":{"__proto__":{"x":1}}}',
    "/settings/__proto__",
  ],
  [
    "a member named constructor in settings",
    '{"name":"edge","settings":{"constructor":"x"}}',
    "/settings/constructor",
  ],
  [
    "a member named prototype in settings",
    '{"name":"edge","settings":{"a":{"prototype":1}}}',
    "/settings/a/prototype",
  ],
  ["a NUL in a member name", '{"name":"edge","settings":{"a\\u0000":1}}', "/settings/a\u0000"],
];

function textRuleSuite(env: () => Promise<Record<string, string>>) {
  async function setup() {
    const testApp = await buildTestApp({ env: await env() });
    return { testApp, owner: await testApp.createOrganization() };
  }

  test.each(keyCases)("REST key create: %s is 400 naming the field", async (_label, json, path) => {
    const { testApp, owner } = await setup();
    expectRefused(await post(testApp, owner, "/v1/api-keys", json), path);
  });

  test.each(keyCases)("REST key update: %s is 400 naming the field", async (_label, json, path) => {
    const { testApp, owner } = await setup();
    expectRefused(await post(testApp, owner, `/v1/api-keys/${owner.id}`, json), path);
  });

  test.each(proxyCases)(
    "REST family create and update: %s is 400 naming the field",
    async (_label, json, path) => {
      const { testApp, owner } = await setup();
      expectRefused(await post(testApp, owner, "/v1/proxies", json), path);
      const made = await post(testApp, owner, "/v1/proxies", '{"name":"edge"}');
      expect(made.status).toBe(200);
      expectRefused(await post(testApp, owner, `/v1/proxies/${String(made.body.id)}`, json), path);
    },
  );

  test("text that is valid Unicode, astral characters included, is stored and read back exactly", async () => {
    const { testApp, owner } = await setup();
    const name = "caf\u00e9 \u{1F511} \u4E2D";
    const made = await post(testApp, owner, "/v1/api-keys", JSON.stringify({ name, permissions: [] }));
    expect(made.status).toBe(200);
    const read = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${String(made.body.id)}`,
      headers: owner.headers,
    });
    expect(read.json().name).toBe(name);
  });

  test("an organization name with NUL or a lone surrogate is refused (the CLI's `org create`)", async () => {
    const { testApp } = await setup();
    for (const name of ["acme\u0000", "acme\ud800"]) {
      const refusal = await createOrganizationWithOwner(testApp.services, name).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(LatchkeyError);
      expect(refusal).toMatchObject({ code: "invalid_request", message: expect.stringContaining("/name") });
    }
  });

  test("MCP refuses the same text and member names as REST", async () => {
    const testApp = await buildTestApp({ env: await env() });
    const owner = await testApp.createOrganization();
    const address = await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    const client = await connectMcp(address, owner.headers);
    const cases: Array<Record<string, unknown>> = [
      { name: "edge\u0000" },
      { name: "edge\ud800" },
      { name: "edge", settings: JSON.parse('{"__proto__":{"polluted":true}}') },
      { name: "edge", settings: { constructor: "x" } },
      { name: "edge", settings: { nested: { prototype: 1 } } },
    ];
    for (const content of cases) {
      const answer = await callTool(client, "create_proxy", { content });
      expect(answer.isError, JSON.stringify(content)).toBe(true);
      expect(answer.structured.error?.code).toBe("invalid_request");
    }
    const list = await testApp.app.inject({ method: "GET", url: "/v1/proxies", headers: owner.headers });
    expect(list.json().data).toEqual([]);
  });
}

textRuleSuite(async () => ({}));

describeWithServices(["postgres"], "on PostgreSQL", ({ postgres }) => {
  textRuleSuite(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    return { LATCHKEY_DATABASE_URL: schema.url };
  });
});
