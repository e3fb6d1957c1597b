import { describe, expect, test } from "vitest";
import { fakeClock, ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";

/** metadata and the list's search filters (docs/keys.md "Metadata and search"). */

const post = (testApp: TestApp, owner: TestKey, url: string, payload: Record<string, unknown>) =>
  testApp.app.inject({ method: "POST", url, headers: owner.headers, payload });

const list = (testApp: TestApp, owner: TestKey, query: string) =>
  testApp.app.inject({ method: "GET", url: `/v1/api-keys?${query}`, headers: owner.headers });

async function seed(testApp: TestApp, owner: TestKey, name: string, metadata?: Record<string, string>) {
  testApp.clock?.advance(1);
  const response = await post(testApp, owner, "/v1/api-keys", { name, permissions: [], metadata });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string; name: string }>();
}

describe("metadata on create and update", () => {
  test("is returned on every record, kept when an update omits it, replaced when given, cleared by null", async () => {
    const { testApp, owner } = await ownerApp();
    const created = await post(testApp, owner, "/v1/api-keys", {
      name: "worker",
      permissions: [],
      metadata: { team: "billing", "deploy.env": "prod", empty: "" },
    });
    const id = created.json().id as string;
    expect(created.json().metadata).toEqual({ team: "billing", "deploy.env": "prod", empty: "" });
    // An official hcti.io client's update: the spec's fields only.
    const kept = await post(testApp, owner, `/v1/api-keys/${id}`, { name: "worker 2", permissions: [] });
    expect(kept.json()).toMatchObject({ name: "worker 2", metadata: { team: "billing" } });
    const read = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${id}`,
      headers: owner.headers,
    });
    expect(read.json().metadata).toEqual({ team: "billing", "deploy.env": "prod", empty: "" });
    const replaced = await post(testApp, owner, `/v1/api-keys/${id}`, {
      permissions: [],
      metadata: { team: "ops" },
    });
    expect(replaced.json().metadata).toEqual({ team: "ops" });
    expect((await list(testApp, owner, "metadata[team]=billing")).json().data).toEqual([]);
    const cleared = await post(testApp, owner, `/v1/api-keys/${id}`, { permissions: [], metadata: null });
    expect(cleared.json().metadata).toBeNull();
    expect((await list(testApp, owner, "metadata[team]=ops")).json().data).toEqual([]);
  });

  test("{} is stored as null, the one way to say none", async () => {
    const { testApp, owner } = await ownerApp();
    const created = await post(testApp, owner, "/v1/api-keys", { permissions: [], metadata: {} });
    expect(created.json().metadata).toBeNull();
  });

  const twentyOne = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`m${i}`, "v"]));
  test.each([
    ["a name with a space", { "has space": "v" }, "/metadata/has space"],
    ["a name of 41 characters", { ["n".repeat(41)]: "v" }, `/metadata/${"n".repeat(41)}`],
    ["21 members", twentyOne, "/metadata"],
    ["a 501-character value", { team: "x".repeat(501) }, "/metadata/team"],
    ["a value that is not a string", { team: 7 }, "/metadata/team"],
  ])("%s is a 400 naming the field, and nothing is stored", async (_label, metadata, path) => {
    const { testApp, owner } = await ownerApp();
    const created = await post(testApp, owner, "/v1/api-keys", { permissions: [], metadata });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ code: "invalid_request", validation_errors: [{ path }] });
    expect((await testApp.services.store.listOrganizations())[0]?.keyCount).toBe(1);
    const updated = await post(testApp, owner, `/v1/api-keys/${owner.id}`, {
      all_future_permissions: true,
      permissions: [],
      name: "changed?",
      metadata,
    });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().validation_errors).toEqual([{ path, message: expect.any(String) }]);
    const stored = await testApp.services.store.findKey(owner.orgId, owner.id);
    expect(stored).toMatchObject({ metadata: null });
    expect(stored?.name).not.toBe("changed?");
  });

  test("20 members, names of 40 characters and values of 500 are accepted", async () => {
    const { testApp, owner } = await ownerApp();
    const metadata = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [
        `${String(i).padStart(2, "0")}${"n".repeat(38)}`,
        "é".repeat(500),
      ]),
    );
    const created = await post(testApp, owner, "/v1/api-keys", { permissions: [], metadata });
    expect(created.statusCode).toBe(200);
    expect(created.json().metadata).toEqual(metadata);
  });
});

describe("list filters", () => {
  test("metadata[<name>]=<value> filters are all-of and combine with name_prefix", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await seed(testApp, owner, "web-1", { team: "billing", env: "prod" });
    await seed(testApp, owner, "web-2", { team: "billing", env: "dev" });
    await seed(testApp, owner, "cli-1", { team: "billing", env: "prod" });
    await seed(testApp, owner, "web-3");
    const names = async (query: string) =>
      ((await list(testApp, owner, query)).json().data as { name: string }[]).map((key) => key.name);
    expect(await names("metadata[team]=billing")).toEqual(["cli-1", "web-2", "web-1"]);
    expect(await names("metadata[team]=billing&metadata[env]=prod")).toEqual(["cli-1", "web-1"]);
    expect(await names("metadata[team]=billing&metadata[env]=prod&name_prefix=web")).toEqual(["web-1"]);
    expect(await names("name_prefix=web-")).toEqual(["web-3", "web-2", "web-1"]);
    expect(await names("name_prefix=WEB")).toEqual([]);
    // Encoded as a browser or URLSearchParams would.
    expect(await names("metadata%5Benv%5D=dev")).toEqual(["web-2"]);
  });

  test("a filtered list is still keyset-paginated: every match once, in order, across pages", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const expected: string[] = [];
    for (let i = 0; i < 9; i++) {
      const key = await seed(testApp, owner, `k${i}`, { shard: i % 3 === 0 ? "a" : "b" });
      if (i % 3 !== 0) expected.unshift(key.name);
    }
    const seen: string[] = [];
    let query = "count=2&metadata[shard]=b";
    for (;;) {
      const page = (await list(testApp, owner, query)).json();
      seen.push(...page.data.map((key: { name: string }) => key.name));
      if (page.pagination.next_page_start === null) break;
      query = `count=2&metadata[shard]=b&page_start=${page.pagination.next_page_start}`;
    }
    expect(seen).toEqual(expected);
  });

  test.each([
    ["a name with a space", "metadata[has%20space]=x", "/query/metadata[has space]"],
    ["a repeated name", "metadata[team]=a&metadata[team]=b", "/query/metadata[team]"],
    ["an empty name_prefix", "name_prefix=", "/query/name_prefix"],
    ["a 501-character value", `metadata[team]=${"x".repeat(501)}`, "/query/metadata[team]"],
  ])("%s is a 400 naming the parameter", async (_label, query, path) => {
    const { testApp, owner } = await ownerApp();
    const response = await list(testApp, owner, query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request", validation_errors: [{ path }] });
  });
});
