import { describe, onTestFinished } from "vitest";
import { openKeyStore } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { keySearchContract } from "./key-search-contract.js";

describe("key search on SQLite", () => {
  keySearchContract(async () => {
    const store = await openKeyStore("sqlite::memory:");
    onTestFinished(() => store.close());
    return store;
  });
});

describeWithServices(["postgres"], "key search on PostgreSQL", ({ postgres }) => {
  keySearchContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const store = await openKeyStore(schema.url);
    onTestFinished(() => store.close());
    return store;
  });
});
