import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { basicAuth, buildTestApp } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { runCli } from "./run-cli.js";

/**
 * `keys import` hashes secrets as the deployment's servers do, whatever the environment the operator
 * runs it in: each server records at start whether it uses a pepper, and which (a fingerprint), and the
 * import refuses when its own LATCHKEY_SECRET_PEPPER disagrees (docs/import.md).
 */

const PEPPER = "the-servers-pepper-of-this-test";
const OTHER_PEPPER = "another-pepper-entirely-here";

type Database = () => Promise<string>;

const sqlite: Database = async () => `sqlite:${join(tempDir(), "latchkey.db")}`;

function hashingSuite(database: Database): void {
  /** A database with one organization, made by the CLI; what the import's commands need. */
  async function setUp() {
    const url = await database();
    const env = { LATCHKEY_DATABASE_URL: url, LATCHKEY_DATABASE_CREATE: "on" };
    const created = await runCli(["org", "create", "--name", "acme", "--json"], env);
    expect(created).toMatchObject({ code: 0 });
    const orgId: string = JSON.parse(created.stdout).organization.id;
    const dir = tempDir();
    /** Writes one import line to a file and runs the import with `pepper` (or none) in its environment. */
    const importLine = async (line: object, pepper?: string) => {
      const file = join(dir, `keys-${randomBytes(4).toString("hex")}.jsonl`);
      writeFileSync(file, `${JSON.stringify(line)}\n`);
      return runCli(["keys", "import", "--org", orgId, "--file", file, "--json"], {
        ...env,
        ...(pepper ? { LATCHKEY_SECRET_PEPPER: pepper } : {}),
      });
    };
    const keyCount = async () => {
      const listed = await runCli(["org", "list", "--json"], env);
      return JSON.parse(listed.stdout)[0].key_count as number;
    };
    /** A server of the deployment starting on the database: this records its hashing. */
    const startServer = (pepper?: string) =>
      buildTestApp({
        env: { LATCHKEY_DATABASE_URL: url, ...(pepper ? { LATCHKEY_SECRET_PEPPER: pepper } : {}) },
      });
    return { url, orgId, importLine, keyCount, startServer };
  }

  const plaintext = () => ({
    name: "legacy",
    permissions: ["api_keys:read"],
    secret: `legacy_${randomBytes(16).toString("hex")}`,
  });

  test("before any server has started on the database, the import is refused and stores nothing", async () => {
    const { importLine, keyCount } = await setUp();
    const refused = await importLine(plaintext());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("No latchkey server has started on this database yet");
    expect(await keyCount()).toBe(1);
  });

  test("servers with a pepper: no pepper here, another pepper, or a SHA-256 line is refused; the same pepper imports keys that authenticate", async () => {
    const { importLine, keyCount, startServer } = await setUp();
    const server = await startServer(PEPPER);
    const line = plaintext();

    const without = await importLine(line);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(
      "the servers of this database hash secrets with a pepper, and LATCHKEY_SECRET_PEPPER is not set here",
    );
    const other = await importLine(line, OTHER_PEPPER);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("LATCHKEY_SECRET_PEPPER here differs from the servers'");
    const hashed = await importLine(
      { ...line, secret: undefined, secret_sha256: createHash("sha256").update(line.secret).digest("hex") },
      PEPPER,
    );
    expect(hashed.code).toBe(2);
    expect(hashed.stderr).toContain(
      "line 1 /secret_sha256 cannot be imported while the servers hash secrets with LATCHKEY_SECRET_PEPPER",
    );
    expect(await keyCount()).toBe(1);

    const imported = await importLine(line, PEPPER);
    expect(imported.code).toBe(0);
    const [key] = JSON.parse(imported.stdout).keys;
    const read = await server.app.inject({
      url: `/v1/api-keys/${key.id}`,
      headers: basicAuth(key.api_id, line.secret),
    });
    expect(read.statusCode).toBe(200);
  });

  test("servers without a pepper: a pepper here is refused; without one, plaintext and SHA-256 lines authenticate", async () => {
    const { importLine, keyCount, startServer } = await setUp();
    const server = await startServer();
    const line = plaintext();

    const peppered = await importLine(line, PEPPER);
    expect(peppered.code).toBe(2);
    expect(peppered.stderr).toContain(
      "the servers of this database hash secrets without a pepper, and LATCHKEY_SECRET_PEPPER is set here",
    );
    expect(await keyCount()).toBe(1);

    const hashedLine = plaintext();
    const imported = [
      await importLine(line),
      await importLine({
        ...hashedLine,
        secret: undefined,
        secret_sha256: createHash("sha256").update(hashedLine.secret).digest("hex"),
      }),
    ];
    for (const [index, result] of imported.entries()) {
      expect(result.code).toBe(0);
      const [key] = JSON.parse(result.stdout).keys;
      const secret = index === 0 ? line.secret : hashedLine.secret;
      const read = await server.app.inject({
        url: `/v1/api-keys/${key.id}`,
        headers: basicAuth(key.api_id, secret),
      });
      expect(read.statusCode).toBe(200);
    }
  });

  test("the last server to start decides: after a restart with a pepper, an import without one is refused", async () => {
    const { importLine, startServer } = await setUp();
    const first = await startServer();
    await first.app.close();
    await startServer(PEPPER);
    const refused = await importLine(plaintext());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("LATCHKEY_SECRET_PEPPER is not set here");
  });
}

describe("keys import hashes as the servers do, on SQLite", () => hashingSuite(sqlite));

describeWithServices(["postgres"], "keys import hashes as the servers do, on PostgreSQL", (services) => {
  hashingSuite(async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    return schema.url;
  });
});
