import { describe, expect, test } from "vitest";
import { buildTestApp, fakeClock, type TestApp, type TestKey, ownerApp } from "../helpers/build-test-app.js";
import { keyWith, seedDisable, seedKey, seedKeys } from "../helpers/http-keys.js";

/** `GET /v1/api-keys`: order, page size, filters and keyset pagination. */

async function list(testApp: TestApp, owner: TestKey, query = "") {
  const response = await testApp.app.inject({
    method: "GET",
    url: `/v1/api-keys${query}`,
    headers: owner.headers,
  });
  return response;
}

const ids = (response: { json(): { data: Array<{ id: string }> } }) =>
  response.json().data.map((key) => key.id);

describe("order and page size", () => {
  test("lists newest first, 10 per page by default, without secrets", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const keys = await seedKeys(testApp, owner, 12);
    const response = await list(testApp, owner);
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(ids(response)).toEqual(
      keys
        .map((key) => key.id)
        .reverse()
        .slice(0, 10),
    );
    expect(response.json().pagination.next_page_start).toEqual(expect.any(String));
    for (const key of response.json().data) expect(key).not.toHaveProperty("api_key");
    for (const key of keys) expect(response.body).not.toContain(key.secret);
  });

  test("keys created in the same millisecond still come in one stable order (id descending)", async () => {
    const testApp = await buildTestApp({ clock: fakeClock() });
    const owner = await testApp.createOrganization();
    for (let i = 0; i < 5; i++) await seedKey(testApp, owner);
    const response = await list(testApp, owner, "?count=100");
    const listed = ids(response);
    expect(listed).toHaveLength(6);
    expect(listed).toEqual([...listed].sort().reverse());
  });

  test("a page that holds exactly the last keys has next_page_start null", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await seedKeys(testApp, owner, 9);
    const response = await list(testApp, owner);
    expect(response.json().data).toHaveLength(10);
    expect(response.json().pagination.next_page_start).toBeNull();
  });

  test.each([1, 7, 100])("count=%i returns at most that many keys", async (count) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await seedKeys(testApp, owner, 11);
    const response = await list(testApp, owner, `?count=${count}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(Math.min(count, 12));
    expect(response.json().pagination.next_page_start === null).toBe(count >= 12);
  });

  test.each(["0", "101", "-1", "1.5", "ten", "", "1&count=2"])("count=%s is 400", async (count) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await list(testApp, owner, `?count=${count}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
    expect(response.json().message).toContain("count");
  });
});

describe("include_disabled", () => {
  test("disabled keys are left out by default and with false, included with true", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const [kept, dropped] = await seedKeys(testApp, owner, 2);
    if (!kept || !dropped) throw new Error("seeding failed");
    await seedDisable(testApp, owner, dropped);
    expect(ids(await list(testApp, owner))).toEqual([kept.id, owner.id]);
    expect(ids(await list(testApp, owner, "?include_disabled=false"))).toEqual([kept.id, owner.id]);
    expect(ids(await list(testApp, owner, "?include_disabled=true"))).toEqual([
      dropped.id,
      kept.id,
      owner.id,
    ]);
  });

  test.each(["yes", "1", "TRUE"])("include_disabled=%s is 400", async (value) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await list(testApp, owner, `?include_disabled=${value}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("include_disabled");
  });
});

describe("with_permission", () => {
  async function catalogueOfKeys() {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    testApp.clock?.advance(1);
    const images = await keyWith(testApp, owner, ["images:create"]);
    testApp.clock?.advance(1);
    const both = await keyWith(testApp, owner, ["images:create", "usage:read"]);
    testApp.clock?.advance(1);
    const usage = await keyWith(testApp, owner, ["usage:read"]);
    testApp.clock?.advance(1);
    const none = await keyWith(testApp, owner, []);
    return { testApp, owner, images, both, usage, none };
  }

  test("one name matches keys holding it, all-future keys included", async () => {
    const { testApp, owner, images, both } = await catalogueOfKeys();
    const response = await list(testApp, owner, "?with_permission=images:create");
    expect(response.statusCode).toBe(200);
    expect(ids(response)).toEqual([both.id, images.id, owner.id]);
  });

  test("the repeated parameter is an all-of match", async () => {
    const { testApp, owner, both } = await catalogueOfKeys();
    const response = await list(testApp, owner, "?with_permission=images:create&with_permission=usage:read");
    expect(ids(response)).toEqual([both.id, owner.id]);
  });

  test("a name no key holds but the all-future owner key matches only that key", async () => {
    const { testApp, owner } = await catalogueOfKeys();
    expect(ids(await list(testApp, owner, "?with_permission=og_configs:delete"))).toEqual([owner.id]);
  });

  test.each([
    ["a comma", "images:create,usage:read"],
    ["a space", "images:create%20usage:read"],
    ["a comma and a space", "images:create,%20usage:read"],
  ])("names joined by %s are 400 telling to repeat the parameter", async (_label, value) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await list(testApp, owner, `?with_permission=${value}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/repeat/i);
  });

  test("an unknown name is 400 naming it", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const response = await list(testApp, owner, "?with_permission=usage:read&with_permission=images:fly");
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("images:fly");
  });
});

describe("pagination", () => {
  async function walk(testApp: TestApp, owner: TestKey, query: string, between?: () => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = `${query}${cursor === null ? "" : `&page_start=${encodeURIComponent(cursor)}`}`;
      const response = await list(testApp, owner, page);
      expect(response.statusCode).toBe(200);
      seen.push(...ids(response));
      cursor = response.json().pagination.next_page_start;
      pages++;
      if (between) await between();
    } while (cursor !== null && pages < 50);
    return { seen, pages };
  }

  test("following next_page_start until null visits every key once, newest first", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const keys = await seedKeys(testApp, owner, 24);
    const { seen, pages } = await walk(testApp, owner, "?count=5");
    expect(pages).toBe(5);
    expect(seen).toEqual([...keys.map((key) => key.id).reverse(), owner.id]);
  });

  test("a page boundary inside a millisecond neither repeats nor skips", async () => {
    const testApp = await buildTestApp({ clock: fakeClock() });
    const owner = await testApp.createOrganization();
    for (let i = 0; i < 9; i++) await seedKey(testApp, owner);
    const { seen } = await walk(testApp, owner, "?count=4");
    expect(seen).toHaveLength(10);
    expect(new Set(seen).size).toBe(10);
  });

  test("keys created between pages do not shift the pages (keyset, not offset)", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const existing = await seedKeys(testApp, owner, 11);
    const { seen } = await walk(testApp, owner, "?count=3", async () => {
      await seedKeys(testApp, owner, 2);
    });
    expect(seen).toEqual([...existing.map((key) => key.id).reverse(), owner.id]);
  });

  test("filters apply on every page", async () => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    const readers: TestKey[] = [];
    for (let i = 0; i < 6; i++) {
      testApp.clock?.advance(1);
      readers.push(await keyWith(testApp, owner, ["usage:read"]));
      testApp.clock?.advance(1);
      await keyWith(testApp, owner, ["images:read"]);
    }
    await seedDisable(testApp, owner, readers[0] as TestKey);
    const { seen } = await walk(testApp, owner, "?count=2&with_permission=usage:read");
    expect(seen).toEqual([...readers.slice(1).map((key) => key.id)].reverse().concat(owner.id));
  });

  test.each([
    ["not base64url", () => "%%%"],
    ["garbage", () => "bm90IGEgY3Vyc29y"],
    ["a cursor with a character removed", (cursor: string) => cursor.slice(0, -1)],
    ["a cursor with a character appended", (cursor: string) => `${cursor}A`],
    ["a cursor with its last character changed", (cursor: string) => flipLast(cursor)],
    ["a cursor with a middle character changed", (cursor: string) => flipAt(cursor, 10)],
  ])("a tampered page_start (%s) is 400 naming page_start", async (_label, tamper) => {
    const { testApp, owner } = await ownerApp({ clock: fakeClock() });
    await seedKeys(testApp, owner, 3);
    const first = await list(testApp, owner, "?count=2");
    const cursor: string = first.json().pagination.next_page_start;
    const response = await list(testApp, owner, `?count=2&page_start=${encodeURIComponent(tamper(cursor))}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
    expect(response.json().message).toContain("page_start");
  });
});

/** Changes one character of a base64url string into another base64url character. */
function flipAt(text: string, index: number): string {
  return `${text.slice(0, index)}${text[index] === "A" ? "B" : "A"}${text.slice(index + 1)}`;
}

function flipLast(text: string): string {
  return flipAt(text, text.length - 1);
}
