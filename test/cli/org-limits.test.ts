import { join } from "node:path";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { startServer, tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey org limits --policy/--per`: an organization's stacked windows, set beside the database and
 * through a running server's provisioning API (`--url`, LATCHKEY_SERVICE_TOKEN), with the same output.
 */

type Database = () => Promise<string>;

/** A database with an organization and a provision-scoped token (made by the CLI), and a server on it. */
async function setUp(database: Database) {
  const local = { LATCHKEY_DATABASE_URL: await database(), LATCHKEY_DATABASE_CREATE: "on" };
  const created = await runCli(["org", "create", "--name", "acme", "--json"], local);
  const { organization, key } = JSON.parse(created.stdout);
  const token = JSON.parse(
    (await runCli(["service-token", "create", "--name", "ops", "--scope", "provision", "--json"], local))
      .stdout,
  ).token as string;
  const server = await startServer({ LATCHKEY_DATABASE_URL: local.LATCHKEY_DATABASE_URL }, await freePort());
  const orgId = organization.id as string;
  const limits = (mode: "local" | "remote", ...flags: string[]) =>
    mode === "local"
      ? runCli(["org", "limits", "--org", orgId, ...flags], local)
      : runCli(["org", "limits", "--org", orgId, "--url", server.baseUrl, ...flags], {
          LATCHKEY_SERVICE_TOKEN: token,
        });
  const authorization = `Basic ${Buffer.from(`${key.api_id}:${key.api_key}`).toString("base64")}`;
  const listKeys = () => fetch(`${server.baseUrl}/v1/api-keys`, { headers: { authorization } });
  return { limits, listKeys };
}

function suite(database: Database): void {
  test.each(["local", "remote"] as const)(
    "%s: --policy sets stacked windows that requests meet, --per key counts per key, 'default' removes them",
    async (mode) => {
      const { limits, listKeys } = await setUp(database);
      const set = await limits(mode, "--group", "api-key:read", "--policy", "2/3600,1000/86400", "--json");
      expect(set).toMatchObject({ code: 0, stderr: "" });
      const output = JSON.parse(set.stdout);
      expect(output.limits["api-key:read"]).toEqual({
        policies: [
          { quota: 2, window_seconds: 3600 },
          { quota: 1000, window_seconds: 86400 },
        ],
        per: "organization",
        source: "override",
      });
      expect(output.quotas["api-key:read"]).toBe(2);

      // The server applies it: the third read in the hour is refused, naming both windows.
      await vi.waitFor(async () => {
        const answers = [await listKeys(), await listKeys(), await listKeys()];
        const refused = answers.find((answer) => answer.status === 429);
        expect(refused?.headers.get("ratelimit-policy")).toContain('"api-key:read/3600";q=2;w=3600');
        // Nodes over PostgreSQL apply an override within 2 seconds.
      }, 10_000);

      const perKey = await limits(mode, "--group", "api-key:write", "--policy", "5/60", "--per", "key");
      expect(perKey.code).toBe(0);
      expect(perKey.stdout).toMatch(/api-key:write\s+5\/60 per key \(override\)\n/);
      expect(perKey.stdout).toMatch(/api-key:read\s+2\/3600,1000\/86400 per organization \(override\)\n/);

      // Without --per, a new policy keeps how the group counts now.
      const again = await limits(mode, "--group", "api-key:write", "--policy", "7/60", "--json");
      expect(JSON.parse(again.stdout).limits["api-key:write"]).toMatchObject({
        per: "key",
        source: "override",
      });

      const removed = await limits(mode, "--group", "api-key:read", "--policy", "default", "--json");
      expect(JSON.parse(removed.stdout).limits["api-key:read"]).toEqual({
        policies: [{ quota: 100, window_seconds: 60 }],
        per: "organization",
        source: "default",
      });
    },
  );

  test("both modes print the same limits, for a person and as JSON", async () => {
    const { limits } = await setUp(database);
    await limits("local", "--group", "api-key:write", "--policy", "3/1,50/3600", "--per", "key");
    for (const flags of [[], ["--json"]]) {
      const [local, remote] = [await limits("local", ...flags), await limits("remote", ...flags)];
      expect(local.code).toBe(0);
      expect(remote).toEqual(local);
    }
  });

  test.each(["local", "remote"] as const)(
    "%s: windows out of range, six windows, --per without --policy and an unknown group exit 2 and change nothing",
    async (mode) => {
      const { limits } = await setUp(database);
      const before = (await limits(mode, "--json")).stdout;
      const refusals = [
        [["--group", "api-key:read", "--policy", "5/0"], "window"],
        [["--group", "api-key:read", "--policy", "5/2678401"], "window"],
        [["--group", "api-key:read", "--policy", "1/1,2/2,3/3,4/4,5/5,6/6"], "policies"],
        [["--group", "api-key:read", "--policy", "5-60"], "--policy"],
        [["--group", "api-key:read", "--per", "key"], "--per goes with --policy"],
        [["--group", "api-key:read", "--policy", "5/60", "--per", "each"], "organization or key"],
        [["--group", "api-key:read", "--quota", "5", "--policy", "5/60"], "give one"],
        [["--group", "no-such-group", "--policy", "5/60"], "no-such-group"],
      ] as const;
      for (const [flags, message] of refusals) {
        const refused = await limits(mode, ...flags);
        expect({ flags, code: refused.code }).toEqual({ flags, code: 2 });
        expect(refused.stderr).toContain(message);
      }
      expect((await limits(mode, "--json")).stdout).toBe(before);
    },
  );
}

describe("org limits --policy on SQLite", () =>
  suite(async () => `sqlite:${join(tempDir(), "latchkey.db")}`));

describeWithServices(["postgres"], "org limits --policy on PostgreSQL", (services) => {
  suite(async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    return schema.url;
  });
});
