import { describe, onTestFinished } from "vitest";
import { openKeyStore } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { keyImportContract } from "./key-import-contract.js";
import { keyStoreContract } from "./key-store-contract.js";

describe("KeyStore on SQLite", () => {
  const open = async () => {
    const store = await openKeyStore("sqlite::memory:");
    onTestFinished(() => store.close());
    return store;
  };
  keyStoreContract(open);
  keyImportContract(open);
});

describeWithServices(["postgres"], "KeyStore on PostgreSQL", ({ postgres }) => {
  // A schema per test: each starts from an empty, freshly migrated database, as on SQLite.
  const open = async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const store = await openKeyStore(schema.url);
    onTestFinished(() => store.close());
    return store;
  };
  keyStoreContract(open);
  keyImportContract(open);
});
