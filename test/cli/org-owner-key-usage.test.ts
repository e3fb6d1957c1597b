import { describe, expect, test, vi } from "vitest";
import { inBothModes, type Mode, newSqliteDatabase } from "./both-modes.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey org owner-key|usage`: a recovery owner key and an organization's usage, beside the database
 * and through a running server's provisioning API (`--url`, LATCHKEY_SERVICE_TOKEN), printed alike.
 */

const PEPPER = "the-servers-pepper-of-this-test";

async function setUp() {
  const local = { ...newSqliteDatabase(), LATCHKEY_SECRET_PEPPER: PEPPER };
  const { orgId, server, cli } = await inBothModes(local, { LATCHKEY_SECRET_PEPPER: PEPPER });
  const org = (mode: Mode, ...args: string[]) => cli(mode, "org", ...args);
  const status = async (apiId: string, secret: string) => {
    const authorization = `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}`;
    return (await fetch(`${server.baseUrl}/v1/api-keys`, { headers: { authorization } })).status;
  };
  return { orgId, org, status, local };
}

describe("org owner-key and org usage, on SQLite", () => {
  test.each(["local", "remote"] as const)(
    "%s: a new owner key is printed once and authenticates against the server",
    async (mode) => {
      const { orgId, org, status } = await setUp();
      const made = await org(mode, "owner-key", orgId, "--json");
      expect(made).toMatchObject({ code: 0, stderr: "" });
      const key = JSON.parse(made.stdout);
      expect(key.api_key).toEqual(expect.any(String));
      expect(await status(key.api_id, key.api_key)).toBe(200);

      const text = await org(mode, "owner-key", orgId);
      expect(text.stdout).toMatch(/api_id: {2}\S+\n {2}api_key: \S+\n$/);
    },
  );

  test("beside the database without the servers' pepper, owner-key is refused and stores nothing", async () => {
    const { orgId, local } = await setUp();
    const { LATCHKEY_SECRET_PEPPER: _pepper, ...without } = local;
    const refused = await runCli(["org", "owner-key", orgId], without);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Secrets hashed here would never authenticate");
    const listed = JSON.parse((await runCli(["org", "list", "--json"], local)).stdout);
    expect(listed[0].key_count).toBe(1);
  });

  test("usage: both modes print the same report; an unknown organization is not found", async () => {
    const { orgId, org } = await setUp();
    const [local, remote] = [
      await org("local", "usage", orgId, "--json"),
      await org("remote", "usage", orgId, "--json"),
    ];
    expect(local).toMatchObject({ code: 0, stderr: "" });
    const report = JSON.parse(local.stdout);
    expect(JSON.parse(remote.stdout)).toEqual(report);
    expect(report.per_billing_period.at(-1)).toMatchObject({ total_images: 0 });
    const table = await org("remote", "usage", orgId);
    expect(table.stdout).toBe((await org("local", "usage", orgId)).stdout);
    expect(table.stdout).toContain("the current one last");
    for (const mode of ["local", "remote"] as const) {
      const missing = await org(mode, "usage", "org_missing");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("No organization org_missing");
    }
  });
});
