import { randomBytes } from "node:crypto";
import pg from "pg";

/** A schema of its own in the test database, and a URL whose connections use only that schema. */
export interface PostgresSchema {
  /** The schema's name (`lk_test_...`). */
  name: string;
  /** The base URL with `search_path` set to the schema, for latchkey, its CLI and its nodes. */
  url: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh, empty schema so that test files (and tests) can share one PostgreSQL database in
 * parallel without seeing each other's rows. The search_path travels in the URL (`options`), so
 * child processes given the URL land in the same schema.
 */
export async function createPostgresSchema(baseUrl: string): Promise<PostgresSchema> {
  const name = `lk_test_${randomBytes(6).toString("hex")}`;
  await withClient(baseUrl, (client) => client.query(`create schema ${name}`));
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withClient(baseUrl, (client) => client.query(`drop schema if exists ${name} cascade`));
    },
  };
}
