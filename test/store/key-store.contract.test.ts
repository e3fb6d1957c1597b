import { describe, onTestFinished } from "vitest";
import { openKeyStore } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { keyStoreContract } from "./key-store-contract.js";

describe("KeyStore on SQLite", () => {
  keyStoreContract(async () => {
    const store = await openKeyStore("sqlite::memory:");
    onTestFinished(() => store.close());
    return store;
  });
});

describeWithServices(["postgres"], "KeyStore on PostgreSQL", ({ postgres }) => {
  // A schema per test: each starts from an empty, freshly migrated database, as on SQLite.
  keyStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const store = await openKeyStore(schema.url);
    onTestFinished(() => store.close());
    return store;
  });
});
