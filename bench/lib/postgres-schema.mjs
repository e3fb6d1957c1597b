// A PostgreSQL schema of a benchmark's own, so that runs never share rows with each other or with the
// tests: `url` lands every connection in it (search_path in the URL), `drop` removes it and its tables.
import { randomBytes } from "node:crypto";
import pg from "pg";

async function run(baseUrl, statement) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createBenchSchema(baseUrl, name = `lk_bench_${randomBytes(6).toString("hex")}`) {
  await run(baseUrl, `create schema ${name}`);
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return { name, url: url.toString(), drop: () => run(baseUrl, `drop schema if exists ${name} cascade`) };
}
