import { statSync } from "node:fs";
import { once } from "node:events";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { LatchkeyError, SecretWithheldError } from "@latchkey/client";
import { describe, expect, onTestFinished, test } from "vitest";
import { PROXIES } from "../../src/domain/resource-families.js";
import {
  type FakeClock,
  buildTestApp,
  fakeClock,
  type TestApp,
  type TestKey,
} from "../helpers/build-test-app.js";
import { createPostgresSchema, type PostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { keyWith } from "../helpers/http-keys.js";
import { recordsOf } from "../helpers/resource-routes.js";
import { describeWithServices } from "../helpers/services.js";
import { startRealServer } from "../client/real-server.js";

/** docs/keys.md "Retrying a create": `Idempotency-Key` on the creates of keys and the three families. */

interface StoredRow {
  response: string | null;
  expires_at: number;
}

interface Backend {
  /** The environment of a fresh app over its own database. */
  env(): Promise<Record<string, string>>;
  /** The `idempotency_keys` rows of the database `env` names, read with a connection of the test's own. */
  rows(env: Record<string, string>): Promise<StoredRow[]>;
}

const sqlite: Backend = {
  env: async () => ({ LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` }),
  async rows(env) {
    const database = new SQLite(env.LATCHKEY_DATABASE_URL!.slice("sqlite:".length), { readonly: true });
    try {
      return database.prepare("select response, expires_at from idempotency_keys").all() as StoredRow[];
    } finally {
      database.close();
    }
  },
};

async function freshSchema(url: string): Promise<PostgresSchema> {
  const schema = await createPostgresSchema(url);
  onTestFinished(() => schema.drop());
  return schema;
}

function postgres(url: string): Backend {
  return {
    // A pepper: on PostgreSQL the key of the sealed responses must be configured.
    env: async () => ({
      LATCHKEY_DATABASE_URL: (await freshSchema(url)).url,
      LATCHKEY_SECRET_PEPPER: "pepper-of-the-idempotency-test",
    }),
    async rows(env) {
      const client = new pg.Client({ connectionString: env.LATCHKEY_DATABASE_URL });
      await client.connect();
      try {
        return (await client.query<StoredRow>("select response, expires_at from idempotency_keys")).rows;
      } finally {
        await client.end();
      }
    },
  };
}

const KEY_BODY = { name: "worker", permissions: ["images:read"] };

async function keyCount(testApp: TestApp, owner: TestKey): Promise<number> {
  const keys = await testApp.services.store.listKeys(owner.orgId, {
    limit: 1000,
    includeDisabled: true,
    withPermissions: [],
  });
  return keys.length;
}

function idempotencySuite(backend: Backend): void {
  let clock: FakeClock;
  let env: Record<string, string>;
  let testApp: TestApp;
  let owner: TestKey;

  async function setUp() {
    clock = fakeClock(Date.now());
    env = await backend.env();
    testApp = await buildTestApp({ env, clock });
    owner = await testApp.createOrganization();
  }

  const createKey = (key: string | undefined, body: object = KEY_BODY) =>
    testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...owner.headers, ...(key === undefined ? {} : { "idempotency-key": key }) },
      payload: body,
    });

  test("a repeat with the same key and body returns the first response and creates nothing", async () => {
    await setUp();
    const before = await keyCount(testApp, owner);
    const first = await createKey("create-1");
    expect(first.statusCode).toBe(200);
    const again = await createKey("create-1");
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(await keyCount(testApp, owner)).toBe(before + 1);
    // The replayed secret is the key's: it authenticates.
    const { api_id, api_key, id } = again.json();
    const read = await testApp.app.inject({
      method: "GET",
      url: `/v1/api-keys/${id}`,
      headers: { authorization: `Basic ${Buffer.from(`${api_id}:${api_key}`).toString("base64")}` },
    });
    expect(read.statusCode).not.toBe(401);
  });

  test("member order is not a difference; another body or route with the same key is 409 idempotency_key_reused", async () => {
    await setUp();
    expect((await createKey("k")).statusCode).toBe(200);
    const reordered = await createKey("k", { permissions: ["images:read"], name: "worker" });
    expect(reordered.statusCode).toBe(200);
    const other = await createKey("k", { ...KEY_BODY, name: "other" });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({
      statusCode: 409,
      error: "Conflict",
      code: "idempotency_key_reused",
    });
    const otherRoute = await testApp.app.inject({
      method: "POST",
      url: PROXIES.path,
      headers: { ...owner.headers, "idempotency-key": "k" },
      payload: { name: "worker" },
    });
    expect(otherRoute.json().code).toBe("idempotency_key_reused");
  });

  test("without the header every create creates; keys are per organization", async () => {
    await setUp();
    const before = await keyCount(testApp, owner);
    await createKey(undefined);
    await createKey(undefined);
    expect(await keyCount(testApp, owner)).toBe(before + 2);
    const otherOwner = await testApp.createOrganization("other");
    const first = await createKey("shared");
    const theirs = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...otherOwner.headers, "idempotency-key": "shared" },
      payload: KEY_BODY,
    });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().id).not.toBe(first.json().id);
  });

  test("a limited key replaying the owner's key and body is refused (403), never handed the first secret", async () => {
    await setUp();
    const allFuture = { name: "everything", permissions: [], all_future_permissions: true };
    const first = await createKey("owner-create", allFuture);
    expect(first.statusCode).toBe(200);
    const limited = await keyWith(testApp, owner, ["api_keys:create_update", "images:read"]);
    const stolen = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...limited.headers, "idempotency-key": "owner-create" },
      payload: allFuture,
    });
    expect(stolen.statusCode).toBe(403);
    expect(stolen.json().code).toBe("insufficient_authority");
    expect(stolen.body).not.toContain(first.json().api_key);
    expect(stolen.headers["idempotent-replayed"]).toBeUndefined();
  });

  test("another key with the same Idempotency-Key and body makes a new key: the first secret goes only to its maker", async () => {
    await setUp();
    const first = await createKey("shared-in-org");
    const peer = await keyWith(testApp, owner, ["api_keys:create_update", "images:read"]);
    const theirs = await testApp.app.inject({
      method: "POST",
      url: "/v1/api-keys",
      headers: { ...peer.headers, "idempotency-key": "shared-in-org" },
      payload: KEY_BODY,
    });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(theirs.json().id).not.toBe(first.json().id);
    expect(theirs.body).not.toContain(first.json().api_key);
    // The maker's own retry is still the first answer.
    const again = await createKey("shared-in-org");
    expect(again.json()).toEqual(first.json());
  });

  test("a replay still checks authority: a key whose grant shrank gets 403, not the kept secret", async () => {
    await setUp();
    const creator = await keyWith(testApp, owner, ["api_keys:create_update", "images:read"]);
    const send = () =>
      testApp.app.inject({
        method: "POST",
        url: "/v1/api-keys",
        headers: { ...creator.headers, "idempotency-key": "before-shrink" },
        payload: KEY_BODY,
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    const update = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${creator.id}`,
      headers: owner.headers,
      payload: { name: "shrunk", permissions: ["api_keys:create_update"] },
    });
    expect(update.statusCode).toBe(200);
    const replay = await send();
    expect(replay.statusCode).toBe(403);
    expect(replay.json().code).toBe("insufficient_authority");
    expect(replay.body).not.toContain(first.json().api_key);
  });

  test.each([
    ["empty", ""],
    ["256 characters", "x".repeat(256)],
    ["a control character", "a\tb"],
  ])("a key that is %s is 400 naming the header", async (_label, key) => {
    await setUp();
    const response = await createKey(key);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request" });
    expect(response.json().message).toContain("idempotency-key");
  });

  test("a 255-character key of printable ASCII is accepted", async () => {
    await setUp();
    const key = "~ !".repeat(85);
    expect((await createKey(key)).statusCode).toBe(200);
    expect((await createKey(key)).headers["idempotent-replayed"]).toBe("true");
  });

  test("concurrent duplicates: one key, every answer the first response or 409 idempotency_key_in_use", async () => {
    await setUp();
    const before = await keyCount(testApp, owner);
    const answers = await Promise.all(Array.from({ length: 8 }, () => createKey("burst")));
    const ok = answers.filter((answer) => answer.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) {
      if (answer.statusCode === 200) expect(answer.json()).toEqual(ok[0]!.json());
      else {
        expect(answer.statusCode).toBe(409);
        expect(answer.json().code).toBe("idempotency_key_in_use");
        expect(answer.headers["retry-after"]).toBe("1");
      }
    }
    expect(await keyCount(testApp, owner)).toBe(before + 1);
  });

  test("after 24 hours the key is free again: a repeat creates anew, and the sweep deletes the old row", async () => {
    await setUp();
    const first = await createKey("daily");
    clock.advance(24 * 60 * 60 * 1000 - 1);
    expect((await createKey("daily")).json().id).toBe(first.json().id);
    clock.advance(1);
    const next = await createKey("daily", { ...KEY_BODY, name: "tomorrow" });
    expect(next.statusCode).toBe(200);
    expect(next.json().id).not.toBe(first.json().id);
    await createKey("other");
    clock.advance(24 * 60 * 60 * 1000);
    expect(await testApp.services.idempotency.sweep()).toBe(2);
    expect(await backend.rows(env)).toEqual([]);
  });

  test("a create that fails (403 insufficient_authority) records nothing: the key may be used again", async () => {
    await setUp();
    const limited = (
      await createKey(undefined, { permissions: ["api_keys:create_update", "images:read"] })
    ).json();
    const asLimited = (key: string, permissions: string[]) =>
      testApp.app.inject({
        method: "POST",
        url: "/v1/api-keys",
        headers: {
          authorization: `Basic ${Buffer.from(`${limited.api_id}:${limited.api_key}`).toString("base64")}`,
          "idempotency-key": key,
        },
        payload: { permissions },
      });
    const refused = await asLimited("again", ["images:delete"]);
    expect(refused.json().code).toBe("insufficient_authority");
    expect(await backend.rows(env)).toEqual([]);
    expect((await asLimited("again", ["images:read"])).statusCode).toBe(200);
  });

  test("the kept response of a key create is sealed: the secret is not in the row", async () => {
    await setUp();
    const created = await createKey("sealed");
    const rows = await backend.rows(env);
    expect(rows).toHaveLength(1);
    const stored = rows[0]!.response!;
    expect(stored.startsWith("aes-256-gcm:")).toBe(true);
    expect(stored).not.toContain(created.json().api_key);
    expect(stored).not.toContain(created.json().api_key.slice(-16));
    expect(stored).not.toContain(created.json().id);
    expect(testApp.logs.join("\n")).not.toContain(created.json().api_key);
  });

  test("a family create is idempotent too", async () => {
    await setUp();
    const create = () =>
      testApp.app.inject({
        method: "POST",
        url: PROXIES.path,
        headers: { ...owner.headers, "idempotency-key": "proxy-1" },
        payload: { name: "egress", settings: { url: "http://proxy.internal:3128" } },
      });
    const first = await create();
    expect(first.statusCode).toBe(200);
    const again = await create();
    expect(again.json()).toEqual(first.json());
    expect(await recordsOf(testApp, owner, PROXIES)).toHaveLength(1);
  });

  test("a create whose connection is cut after the commit, retried with the same key, gives one key", async () => {
    await setUp();
    const before = await keyCount(testApp, owner);
    await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = testApp.app.server.address() as AddressInfo;
    const payload = JSON.stringify(KEY_BODY);
    // The connection breaks as the answer starts to arrive (after the commit): the client never sees
    // its key's secret, as when a proxy or the network cuts a response.
    const socket = connect(port, "127.0.0.1");
    socket.write(
      `POST /v1/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${owner.headers.authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` +
        `Idempotency-Key: cut\r\n\r\n${payload}`,
    );
    await once(socket, "data");
    socket.destroy();
    expect(await keyCount(testApp, owner)).toBe(before + 1);
    const retried = await createKey("cut");
    expect(retried.statusCode).toBe(200);
    expect(retried.headers["idempotent-replayed"]).toBe("true");
    expect(await keyCount(testApp, owner)).toBe(before + 1);
  });
}

describe("Idempotency-Key on SQLite", () => {
  idempotencySuite(sqlite);

  test("without a pepper the sealing key is a 0600 file beside the database", async () => {
    const env = await sqlite.env();
    await buildTestApp({ env });
    const keyFile = join(env.LATCHKEY_DATABASE_URL!.slice("sqlite:".length), "..", "latchkey-server.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });
});

describeWithServices(["postgres"], "Idempotency-Key on PostgreSQL", ({ postgres: url }) => {
  idempotencySuite(postgres(url));

  test("without a pepper or key file a create with the header succeeds, and its repeat answers the record with the secret withheld", async () => {
    const schema = await freshSchema(url);
    const testApp = await buildTestApp({ env: { LATCHKEY_DATABASE_URL: schema.url } });
    const owner = await testApp.createOrganization();
    const create = () =>
      testApp.app.inject({
        method: "POST",
        url: "/v1/api-keys",
        headers: { ...owner.headers, "idempotency-key": "no-key" },
        payload: KEY_BODY,
      });
    const first = await create();
    expect(first.statusCode).toBe(200);
    expect(first.json().api_key).toMatch(/^lksk_/);
    expect(first.headers["idempotent-secret-withheld"]).toBeUndefined();
    const before = await keyCount(testApp, owner);
    const repeat = await create();
    expect(repeat.statusCode).toBe(200);
    expect(repeat.headers["idempotent-replayed"]).toBe("true");
    expect(repeat.headers["idempotent-secret-withheld"]).toBe("true");
    expect(repeat.json()).toEqual({ ...first.json(), api_key: "" });
    expect(await keyCount(testApp, owner)).toBe(before);
  });

  test("the typed client turns a withheld secret into SecretWithheldError carrying the record, never api_key ''", async () => {
    const schema = await freshSchema(url);
    const server = await startRealServer({ LATCHKEY_DATABASE_URL: schema.url });
    onTestFinished(() => server.test.app.close());
    const client = server.clientFor(await server.owner());
    const first = await client.keys.create(KEY_BODY, "client-repeat");
    expect(first.api_key).toMatch(/^lksk_/);
    const repeat = await client.keys.create(KEY_BODY, "client-repeat").catch((error: unknown) => error);
    expect(repeat).toBeInstanceOf(SecretWithheldError);
    expect(repeat).toBeInstanceOf(LatchkeyError);
    const withheld = repeat as SecretWithheldError;
    expect(withheld.code).toBe("secret_withheld");
    expect(withheld.message).toContain("roll the key");
    expect(withheld.record).toMatchObject({ id: first.id, api_id: first.api_id, api_key: "" });
    // A webhook endpoint's signing secret alike.
    const endpoint = { url: "https://93.184.215.14/hooks", events: ["webhook.test" as const] };
    await client.webhooks.create(endpoint, "client-webhook");
    const again = await client.webhooks.create(endpoint, "client-webhook").catch((error: unknown) => error);
    expect(again).toBeInstanceOf(SecretWithheldError);
    expect((again as SecretWithheldError).record).toMatchObject({ secret: "" });
  });
});
