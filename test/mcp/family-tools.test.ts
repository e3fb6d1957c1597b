import { describe, expect, test } from "vitest";
import { RESOURCE_FAMILIES, STORAGE_DESTINATIONS } from "../../src/domain/resource-families.js";
import { keyWith } from "../helpers/http-keys.js";
import { callTool, connectMcp, listeningApp } from "./mcp-client.js";

interface RecordShape {
  id: string;
  name: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

async function setup() {
  const testApp = await listeningApp();
  const owner = await testApp.createOrganization();
  const client = await connectMcp(testApp.baseUrl, owner.headers);
  return { testApp, owner, client };
}

describe.each(RESOURCE_FAMILIES.map((family) => [family.plural, family] as const))(
  "%s over MCP",
  (_label, family) => {
    const tools = family.tools;

    test("create, list, get, update, delete: each result is {success, item} as structured content and as text", async () => {
      const { testApp, owner, client } = await setup();

      const created = await callTool(client, tools.create, {
        content: { name: "Edge", settings: { region: "eu" } },
      });
      expect(created.isError).toBe(false);
      expect(JSON.parse(created.text)).toEqual(created.structured);
      const record = (created.structured as { item: RecordShape }).item;
      expect(record).toEqual({
        id: expect.stringMatching(new RegExp(`^${family.idPrefix}[0-9A-Za-z]{22}$`)),
        name: "Edge",
        enabled: true,
        settings: { region: "eu" },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });

      // REST sees the record MCP made: one service behind both.
      const rest = await fetch(`${testApp.baseUrl}${family.path}/${record.id}`, { headers: owner.headers });
      expect(rest.status).toBe(200);
      expect(await rest.json()).toEqual(record);

      const listed = await callTool(client, tools.list, { count: 5 });
      expect(listed.structured).toEqual({
        success: true,
        item: { data: [record], pagination: { next_page_start: null } },
      });

      const got = await callTool(client, tools.get, { id: record.id });
      expect(got.structured).toEqual({ success: true, item: record });

      // Full replacement: settings left out return to {}.
      const updated = await callTool(client, tools.update, {
        id: record.id,
        content: { name: "Edge 2", disabled: true },
      });
      expect(updated.isError).toBe(false);
      expect((updated.structured as { item: RecordShape }).item).toMatchObject({
        id: record.id,
        name: "Edge 2",
        enabled: false,
        settings: {},
        created_at: record.created_at,
      });

      const deleted = await callTool(client, tools.delete, { id: record.id });
      expect(deleted.structured).toEqual({ success: true, item: true });
      expect(JSON.parse(deleted.text)).toEqual({ success: true, item: true });
      const again = await callTool(client, tools.delete, { id: record.id });
      expect(again.structured).toEqual({ success: true, item: true });

      const gone = await callTool(client, tools.get, { id: record.id });
      expect(gone.isError).toBe(true);
      expect(gone.structured.error?.code).toBe("not_found");
      expect(gone.text).toContain(record.id);
    });

    test("list pages with count and page_start", async () => {
      const { client } = await setup();
      for (const name of ["a", "b", "c"]) await callTool(client, tools.create, { content: { name } });
      const first = (await callTool(client, tools.list, { count: 2 })).structured.item as {
        data: RecordShape[];
        pagination: { next_page_start: string | null };
      };
      expect(first.data.map((r) => r.name)).toEqual(["c", "b"]);
      expect(first.pagination.next_page_start).toEqual(expect.any(String));
      const second = (
        await callTool(client, tools.list, { count: 2, page_start: first.pagination.next_page_start })
      ).structured.item as { data: RecordShape[]; pagination: { next_page_start: string | null } };
      expect(second.data.map((r) => r.name)).toEqual(["a"]);
      expect(second.pagination.next_page_start).toBeNull();
    });

    test("without the permission, each tool is a tool error naming it, and nothing is changed", async () => {
      const { testApp, owner, client } = await setup();
      const existing = (await callTool(client, tools.create, { content: { name: "kept" } })).structured
        .item as RecordShape;
      const reader = await keyWith(testApp, owner, [family.permissions.read]);
      const readerClient = await connectMcp(testApp.baseUrl, reader.headers);
      const nobody = await keyWith(testApp, owner, ["usage:read"]);
      const nobodyClient = await connectMcp(testApp.baseUrl, nobody.headers);

      const refusals = [
        [readerClient, tools.create, { content: { name: "new" } }, family.permissions.createUpdate],
        [
          readerClient,
          tools.update,
          { id: existing.id, content: { name: "renamed" } },
          family.permissions.createUpdate,
        ],
        [readerClient, tools.delete, { id: existing.id }, family.permissions.delete],
        [nobodyClient, tools.list, {}, family.permissions.read],
        [nobodyClient, tools.get, { id: existing.id }, family.permissions.read],
      ] as const;
      for (const [caller, tool, args, permission] of refusals) {
        const answer = await callTool(caller, tool, args);
        expect(answer.isError, tool).toBe(true);
        expect(answer.text).toBe(`This operation requires the ${permission} permission.`);
        expect(answer.structured.error?.code).toBe("missing_permission");
      }
      const page = (await callTool(client, tools.list)).structured.item as { data: RecordShape[] };
      expect(page.data).toEqual([existing]);
      expect((await callTool(readerClient, tools.get, { id: existing.id })).isError).toBe(false);
    });

    test("bad arguments are tool errors that say what is wrong; the operation is not run", async () => {
      const { client } = await setup();
      const existing = (await callTool(client, tools.create, { content: { name: "kept" } })).structured
        .item as RecordShape;
      const otherFamily = RESOURCE_FAMILIES.find((other) => other !== family)!;
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        [tools.create, {}, /\/content is required/],
        [tools.create, { content: { name: "x", enabled: true } }, /\/content\/enabled is not a known field/],
        [tools.create, { content: { name: "" } }, /\/content\/name/],
        [tools.create, { content: { name: "n".repeat(256) } }, /\/content\/name/],
        [tools.create, { content: { name: "x", disabled: "true" } }, /\/content\/disabled must be boolean/],
        [tools.create, { content: { name: "x", settings: { blob: "b".repeat(17 * 1024) } } }, /settings/],
        [tools.create, { content: { name: "x" }, extra: 1 }, /\/extra is not a known field/],
        [tools.update, { id: existing.id, content: { name: "x", settings: [] } }, /\/content\/settings/],
        [tools.update, { id: `${otherFamily.idPrefix}${"a".repeat(22)}`, content: { name: "x" } }, /\/id/],
        [tools.get, { id: 42 }, /\/id must be string/],
        [tools.delete, {}, /\/id is required/],
        [tools.list, { count: 0 }, /\/count/],
        [tools.list, { count: "5" }, /\/count must be an integer from 1 to 100/],
        [tools.list, { page_start: "tampered" }, /page_start|cursor/i],
      ];
      for (const [tool, args, message] of cases) {
        const answer = await callTool(client, tool, args);
        expect(answer.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
        expect(answer.structured.error?.code).toBe("invalid_request");
        expect(answer.text).toMatch(message);
      }
      const page = (await callTool(client, tools.list)).structured.item as { data: RecordShape[] };
      expect(page.data).toEqual([existing]);
    });

    test("another organization's record is not found", async () => {
      const { testApp, client } = await setup();
      const theirs = (await callTool(client, tools.create, { content: { name: "theirs" } })).structured
        .item as RecordShape;
      const stranger = await testApp.createOrganization("other");
      const strangerClient = await connectMcp(testApp.baseUrl, stranger.headers);
      for (const [tool, args] of [
        [tools.get, { id: theirs.id }],
        [tools.update, { id: theirs.id, content: { name: "mine now" } }],
        [tools.delete, { id: theirs.id }],
      ] as const) {
        const answer = await callTool(strangerClient, tool, args);
        expect(answer.structured.error?.code, tool).toBe("not_found");
      }
      expect((await callTool(client, tools.get, { id: theirs.id })).structured.item).toEqual(theirs);
    });

    if (family.planFeature) {
      const feature = family.planFeature;
      test("a plan without the family makes every tool a plan_restricted tool error", async () => {
        const { testApp, owner, client } = await setup();
        const existing = (await callTool(client, tools.create, { content: { name: "kept" } })).structured
          .item as RecordShape;
        await testApp.services.plans.change(owner.orgId, { [feature]: false });
        for (const [tool, args] of [
          [tools.list, {}],
          [tools.get, { id: existing.id }],
          [tools.create, { content: { name: "new" } }],
          [tools.update, { id: existing.id, content: { name: "x" } }],
          [tools.delete, { id: existing.id }],
        ] as const) {
          const answer = await callTool(client, tool, args);
          expect(answer.isError, tool).toBe(true);
          expect(answer.structured.error?.code).toBe("plan_restricted");
          expect(answer.text).toContain(`does not include ${family.plural}`);
        }
        await testApp.services.plans.change(owner.orgId, { [feature]: true });
        expect((await callTool(client, tools.list)).structured.item).toMatchObject({ data: [existing] });
      });
    }
  },
);

test("get_aws_storage_external_id: stable, the same as REST's, needs storage_destinations:create_update", async () => {
  const { testApp, owner, client } = await setup();
  const first = await callTool(client, "get_aws_storage_external_id");
  expect(first.structured).toEqual({ success: true, item: { external_id: expect.any(String) } });
  expect((await callTool(client, "get_aws_storage_external_id")).structured).toEqual(first.structured);
  const rest = await fetch(`${testApp.baseUrl}${STORAGE_DESTINATIONS.path}/aws-external-id`, {
    headers: owner.headers,
  });
  expect(await rest.json()).toEqual((first.structured as { item: unknown }).item);

  const reader = await keyWith(testApp, owner, ["storage_destinations:read"]);
  const readerClient = await connectMcp(testApp.baseUrl, reader.headers);
  const refused = await callTool(readerClient, "get_aws_storage_external_id");
  expect(refused.isError).toBe(true);
  expect(refused.text).toBe("This operation requires the storage_destinations:create_update permission.");
});

test("tools/list offers the five tools of each family with their TypeBox input schemas", async () => {
  const { client } = await setup();
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect(tools.map((tool) => tool.name).sort()).toEqual(
    [
      ...RESOURCE_FAMILIES.flatMap((family) => Object.values(family.tools)),
      "get_aws_storage_external_id",
      "check_usage",
      "get_max_batch_size",
    ].sort(),
  );
  expect(byName.get("create_proxy")?.inputSchema).toMatchObject({
    type: "object",
    required: ["content"],
    additionalProperties: false,
    properties: { content: { required: ["name"], additionalProperties: false } },
  });
  expect(byName.get("update_og_config")?.inputSchema.required).toEqual(["id", "content"]);
  expect(byName.get("list_storage_destinations")?.inputSchema.required ?? []).toEqual([]);
});
