import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { basicAuth, buildTestApp } from "../helpers/build-test-app.js";
import { tempDir } from "../helpers/processes.js";
import { runCli } from "./run-cli.js";

/**
 * `org create` and `service-token create` beside the database hash the secret they print as the
 * deployment's servers do: run with another LATCHKEY_SECRET_PEPPER than the servers recorded at start,
 * they refuse as `keys import` does, storing nothing, instead of printing a secret that never works.
 */

const PEPPER = "the-servers-pepper-of-this-test";
const OTHER_PEPPER = "another-pepper-entirely-here";

async function setUp() {
  const url = `sqlite:${join(tempDir(), "latchkey.db")}`;
  const env = { LATCHKEY_DATABASE_URL: url, LATCHKEY_DATABASE_CREATE: "on" };
  const withPepper = (pepper?: string) => ({ ...env, ...(pepper ? { LATCHKEY_SECRET_PEPPER: pepper } : {}) });
  const startServer = (pepper?: string) =>
    buildTestApp({
      env: { LATCHKEY_DATABASE_URL: url, ...(pepper ? { LATCHKEY_SECRET_PEPPER: pepper } : {}) },
    });
  const counts = async () => {
    const orgs = JSON.parse((await runCli(["org", "list", "--json"], env)).stdout) as unknown[];
    const tokens = JSON.parse((await runCli(["service-token", "list", "--json"], env)).stdout) as unknown[];
    return { orgs: orgs.length, tokens: tokens.length };
  };
  return { withPepper, startServer, counts };
}

const orgCreate = ["org", "create", "--name", "acme", "--json"];
const tokenCreate = ["service-token", "create", "--name", "billing", "--scope", "provision", "--json"];

describe("creates beside the database hash as the servers do, on SQLite", () => {
  test("before any server has started, both creates work (setting a database up comes first)", async () => {
    const { withPepper, counts } = await setUp();
    expect((await runCli(orgCreate, withPepper())).code).toBe(0);
    expect((await runCli(tokenCreate, withPepper())).code).toBe(0);
    expect(await counts()).toEqual({ orgs: 1, tokens: 1 });
  });

  test("servers with a pepper: without it or with another, both creates are refused with exit 2 and store nothing", async () => {
    const { withPepper, startServer, counts } = await setUp();
    const server = await startServer(PEPPER);
    for (const pepper of [undefined, OTHER_PEPPER]) {
      for (const args of [orgCreate, tokenCreate]) {
        const refused = await runCli(args, withPepper(pepper));
        expect(refused.code).toBe(2);
        expect(refused.stdout).toBe("");
        expect(refused.stderr).toContain("Secrets hashed here would never authenticate");
      }
    }
    expect(await counts()).toEqual({ orgs: 0, tokens: 0 });

    // With the servers' pepper the owner key and the token work against the server.
    const created = await runCli(orgCreate, withPepper(PEPPER));
    expect(created.code).toBe(0);
    const { key } = JSON.parse(created.stdout);
    const read = await server.app.inject({
      url: `/v1/api-keys/${key.id}`,
      headers: basicAuth(key.api_id, key.api_key),
    });
    expect(read.statusCode).toBe(200);
    const token = await runCli(tokenCreate, withPepper(PEPPER));
    expect(token.code).toBe(0);
    const listed = await server.app.inject({
      url: "/v1/admin/organizations",
      headers: { "x-latchkey-service-token": JSON.parse(token.stdout).token },
    });
    expect(listed.statusCode).toBe(200);
  });

  test("servers without a pepper: a create with one is refused", async () => {
    const { withPepper, startServer, counts } = await setUp();
    await startServer();
    for (const args of [orgCreate, tokenCreate]) {
      const refused = await runCli(args, withPepper(PEPPER));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "the servers of this database hash secrets without a pepper, and LATCHKEY_SECRET_PEPPER is set here",
      );
    }
    expect(await counts()).toEqual({ orgs: 0, tokens: 0 });
  });
});
