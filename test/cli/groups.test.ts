import { join } from "node:path";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { inBothModes } from "./both-modes.js";

vi.setConfig({ testTimeout: 120_000 });

/** `latchkey groups put`: the platform's own groups, beside the database and with `--url`, alike. */

type Database = () => Promise<string>;

async function setUp(database: Database) {
  const { orgId, cli } = await inBothModes({
    LATCHKEY_DATABASE_URL: await database(),
    LATCHKEY_DATABASE_CREATE: "on",
  });
  return { orgId, cli };
}

function suite(database: Database): void {
  test("a group put in either mode is known to both, printed alike, and organizations can override it", async () => {
    const { orgId, cli } = await setUp(database);
    const local = await cli("local", "groups", "put", "render", "--policy", "10/1,1000/3600", "--per", "key");
    const remote = await cli("remote", "groups", "put", "thumbnails", "--policy", "60/60");
    expect(local).toMatchObject({ code: 0, stdout: "Group render: 10/1,1000/3600 per key\n" });
    expect(remote).toMatchObject({ code: 0, stdout: "Group thumbnails: 60/60 per organization\n" });
    const json = await cli(
      "remote",
      "groups",
      "put",
      "render",
      "--policy",
      "10/1,1000/3600",
      "--per",
      "key",
      "--json",
    );
    expect(JSON.parse(json.stdout)).toEqual({
      name: "render",
      policies: [
        { quota: 10, window_seconds: 1 },
        { quota: 1000, window_seconds: 3600 },
      ],
      per: "key",
    });

    // Both modes see both groups (the server reads declared groups within 2 seconds).
    await vi.waitFor(async () => {
      for (const mode of ["local", "remote"] as const) {
        const limits = JSON.parse((await cli(mode, "org", "limits", "--org", orgId, "--json")).stdout).limits;
        expect(limits.render).toMatchObject({ per: "key", source: "default" });
        expect(limits.thumbnails).toMatchObject({ per: "organization", source: "default" });
      }
      // Each try runs two commands; the deployment's promise is 2 seconds.
    }, 20_000);
    const override = await cli(
      "local",
      "org",
      "limits",
      "--org",
      orgId,
      "--group",
      "render",
      "--policy",
      "2/1",
    );
    expect(override.stdout).toMatch(/render\s+2\/1 per key \(override\)\n/);
  });

  test.each(["local", "remote"] as const)(
    "%s: a management group, windows out of range or bad syntax exit 2",
    async (mode) => {
      const { cli } = await setUp(database);
      for (const [args, message] of [
        [["groups", "put", "api-key:read", "--policy", "5/60"], "api-key:read"],
        [["groups", "put", "render", "--policy", "5/0"], "window"],
        [["groups", "put", "render", "--policy", "five"], "--policy"],
        [["groups", "put", "render", "--policy", "5/60", "--per", "everyone"], "organization or key"],
      ] as const) {
        const refused = await cli(mode, ...args);
        expect({ args, code: refused.code }).toEqual({ args, code: 2 });
        expect(refused.stderr).toContain(message);
      }
    },
  );
}

describe("groups put on SQLite", () => suite(async () => `sqlite:${join(tempDir(), "latchkey.db")}`));

describeWithServices(["postgres"], "groups put on PostgreSQL", (services) => {
  suite(async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    return schema.url;
  });
});
