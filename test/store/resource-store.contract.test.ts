import { describe, onTestFinished } from "vitest";
import { openStores } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { resourceStoreContract } from "./resource-store-contract.js";

describe("ResourceStore on SQLite", () => {
  resourceStoreContract(async () => {
    const stores = await openStores("sqlite::memory:");
    onTestFinished(() => stores.close());
    return stores;
  });
});

describeWithServices(["postgres"], "ResourceStore on PostgreSQL", ({ postgres }) => {
  // A schema per test: each starts from an empty, freshly migrated database, as on SQLite.
  resourceStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return stores;
  });
});
