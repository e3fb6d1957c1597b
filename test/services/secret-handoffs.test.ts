import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { describe, expect, onTestFinished, test } from "vitest";
import { createSecretHandoffs, HANDOFF_MS } from "../../src/services/secret-handoffs.js";
import { openStores } from "../../src/store/open-database.js";
import { fakeClock } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

/** A session as the console derives it from a cookie's value. */
function session() {
  const token = randomBytes(32).toString("base64url");
  return {
    tokenHash: createHash("sha256").update(token).digest("hex"),
    handoffKey: createHash("sha256").update(`handoff:${token}`).digest(),
  };
}

const SECRET = { recordId: "key_abc", secret: "lksk_not_a_real_secret_but_long_enough_00" };

function contract(label: string, open: () => Promise<string>) {
  describe(`secret handoffs on ${label}`, () => {
    async function setup() {
      const stores = await openStores(await open());
      onTestFinished(() => stores.close());
      const clock = fakeClock();
      return { clock, handoffs: createSecretHandoffs(stores.secretHandoffs, clock) };
    }

    test("a secret is taken once, by its session only", async () => {
      const { handoffs } = await setup();
      const mine = session();
      const id = await handoffs.hand(mine, SECRET);
      expect(await handoffs.take(session(), id)).toBeUndefined();
      expect(await handoffs.take(mine, id)).toEqual(SECRET);
      expect(await handoffs.take(mine, id)).toBeUndefined();
    });

    test("two takes at once: one gets the secret", async () => {
      const { handoffs } = await setup();
      const mine = session();
      const id = await handoffs.hand(mine, SECRET);
      const taken = await Promise.all([handoffs.take(mine, id), handoffs.take(mine, id)]);
      expect(taken.filter((one) => one !== undefined)).toEqual([SECRET]);
    });

    test("a page never opened: its secret is gone after ten minutes", async () => {
      const { handoffs, clock } = await setup();
      const mine = session();
      const late = await handoffs.hand(mine, SECRET);
      clock.advance(HANDOFF_MS + 1);
      expect(await handoffs.take(mine, late)).toBeUndefined();
    });
  });
}

contract("SQLite", async () => "sqlite::memory:");

test("the database holds the secret sealed: neither it nor the session's key is in the row", async () => {
  const file = join(tempDir(), "latchkey.db");
  const stores = await openStores(`sqlite:${file}`);
  onTestFinished(() => stores.close());
  const mine = session();
  const id = await createSecretHandoffs(stores.secretHandoffs, fakeClock()).hand(mine, SECRET);
  const database = new SQLite(file, { readonly: true });
  onTestFinished(() => {
    database.close();
  });
  const row = database.prepare("select * from console_secret_handoffs where id = ?").get(id) as Record<
    string,
    unknown
  >;
  expect(row.session_hash).toBe(mine.tokenHash);
  expect(String(row.sealed)).toMatch(/^aes-256-gcm:/);
  const stored = JSON.stringify(row);
  expect(stored).not.toContain(SECRET.secret);
  expect(stored).not.toContain(mine.handoffKey.toString("base64"));
  expect(stored).not.toContain(mine.handoffKey.toString("hex"));
});

describeWithServices(["postgres"], "secret handoffs over PostgreSQL", (services) => {
  contract("PostgreSQL", async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(schema.drop);
    return schema.url;
  });
});
