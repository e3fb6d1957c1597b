import { describe, onTestFinished } from "vitest";
import { openStores } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { auditStoreContract } from "./audit-store-contract.js";

describe("audit trail and last use on SQLite", () => {
  auditStoreContract(async () => {
    const stores = await openStores("sqlite::memory:");
    onTestFinished(() => stores.close());
    return stores;
  });
});

describeWithServices(["postgres"], "audit trail and last use on PostgreSQL", ({ postgres }) => {
  auditStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return stores;
  });
});
