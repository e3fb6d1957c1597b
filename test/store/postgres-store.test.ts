import pg from "pg";
import { expect, onTestFinished, test } from "vitest";
import { createServices, type Services } from "../../src/app.js";
import { bootstrapFirstOrganization } from "../../src/bootstrap.js";
import { loadConfig } from "../../src/config.js";
import { type OpenedKeyStore, openKeyStore } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

/** What several nodes over one PostgreSQL database need beyond the store contract. */
describeWithServices(["postgres"], "PostgreSQL shared by several nodes", ({ postgres }) => {
  async function freshSchemaUrl(): Promise<string> {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    return schema.url;
  }

  function closing<T extends OpenedKeyStore>(store: T): T {
    onTestFinished(() => store.close());
    return store;
  }

  test("three nodes starting at once over an empty database all migrate it and share it", async () => {
    const url = await freshSchemaUrl();
    const stores = (await Promise.all([1, 2, 3].map(() => openKeyStore(url)))).map(closing);
    const org = { id: "org_shared", name: "shared", createdAt: 1 };
    await stores[0]?.createOrganization(org);
    expect(await stores[2]?.findOrganization(org.id)).toEqual(org);
  });

  test("a second latchkey schema in the same database gets its own tables", async () => {
    const first = closing(await openKeyStore(await freshSchemaUrl()));
    const second = closing(await openKeyStore(await freshSchemaUrl()));
    await first.createOrganization({ id: "org_a", name: "a", createdAt: 1 });
    expect(await second.hasOrganizations()).toBe(false);
    expect(await second.findOrganization("org_a")).toBeUndefined();
  });

  test("of three nodes starting together over an empty database, one creates organization default", async () => {
    const config = loadConfig({ LATCHKEY_DATABASE_URL: await freshSchemaUrl() });
    const nodes: Services[] = await Promise.all([1, 2, 3].map(() => createServices(config)));
    for (const node of nodes) {
      onTestFinished(async () => {
        await node.limiter.close();
        await node.closeDatabase();
      });
    }
    const printed: string[] = [];
    const created = await Promise.all(
      nodes.map((node) =>
        bootstrapFirstOrganization(node, { ...config, bootstrap: "print" }, (text) => printed.push(text)),
      ),
    );
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(printed).toHaveLength(1);
    const organizationId = /organization:\s+(org_\w+)/.exec(printed[0] ?? "")?.[1] ?? "";
    expect(await nodes[1]?.store.findOrganization(organizationId)).toMatchObject({ name: "default" });
  });
});

describeWithServices(["postgres"], "PostgreSQL shared with other programs", ({ postgres }) => {
  test("nodes start while another schema of the same database is being created and dropped", async () => {
    const churning = new pg.Client({ connectionString: postgres });
    await churning.connect();
    onTestFinished(() => churning.end());
    let stop = false;
    const churn = (async () => {
      for (let round = 0; !stop; round += 1) {
        const other = `lk_other_${process.pid}_${round}`;
        await churning.query(
          `create schema ${other}; create table ${other}.t (id serial primary key, a text)`,
        );
        await churning.query(`drop schema ${other} cascade`);
      }
    })();
    try {
      for (let start = 0; start < 15; start += 1) {
        const schema = await createPostgresSchema(postgres);
        onTestFinished(() => schema.drop());
        const store = await openKeyStore(schema.url);
        await store.close();
      }
    } finally {
      stop = true;
      await churn;
    }
  });
});
