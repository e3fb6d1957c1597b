import { describe, expect, test, vi } from "vitest";
import { inBothModes, type Mode, newSqliteDatabase } from "./both-modes.js";

vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey org update|show`: one organization changed and shown beside the database and through a
 * running server's provisioning API (`--url`, LATCHKEY_SERVICE_TOKEN), with the same checks and output.
 */

async function setUp() {
  const { orgId, ownerKey, server, cli } = await inBothModes(newSqliteDatabase());
  const org = (mode: Mode, ...args: string[]) => cli(mode, "org", ...args);
  const authorization = `Basic ${Buffer.from(`${ownerKey.api_id}:${ownerKey.api_key}`).toString("base64")}`;
  const ownerKeyStatus = async () =>
    (await fetch(`${server.baseUrl}/v1/api-keys`, { headers: { authorization } })).status;
  return { orgId, org, ownerKeyStatus };
}

describe("org update, org show and org list --url, on SQLite", () => {
  test.each(["local", "remote"] as const)(
    "%s: renames, sets and removes the external id, disables (the server refuses its keys) and enables",
    async (mode) => {
      const { orgId, org, ownerKeyStatus } = await setUp();
      const renamed = await org(
        mode,
        "update",
        orgId,
        "--name",
        "Acme Inc",
        "--external-id",
        "cus_42",
        "--json",
      );
      expect(renamed).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(renamed.stdout)).toMatchObject({
        id: orgId,
        name: "Acme Inc",
        external_id: "cus_42",
        enabled: true,
      });

      const disabled = await org(mode, "update", orgId, "--disable");
      expect(disabled.code).toBe(0);
      expect(disabled.stdout).toMatch(/state:\s+disabled\n/);
      await vi.waitFor(async () => expect(await ownerKeyStatus()).toBe(403), 10_000);

      expect((await org(mode, "update", orgId, "--enable", "--no-external-id")).code).toBe(0);
      await vi.waitFor(async () => expect(await ownerKeyStatus()).toBe(200), 10_000);

      // Both modes show the organization alike.
      const [local, remote] = [await org("local", "show", orgId), await org("remote", "show", orgId)];
      expect(local).toMatchObject({ code: 0, stderr: "" });
      expect(remote.stdout).toBe(local.stdout);
      expect(local.stdout).toMatch(/name:\s+Acme Inc\n\s+external id: none\n\s+state:\s+enabled\n/);
      const json = [
        await org("local", "show", orgId, "--json"),
        await org("remote", "show", orgId, "--json"),
      ];
      expect(JSON.parse(json[1]!.stdout)).toEqual(JSON.parse(json[0]!.stdout));
    },
  );

  test("a blank name is refused with the API's message in both modes, and nothing changes", async () => {
    const { orgId, org } = await setUp();
    const [local, remote] = [
      await org("local", "update", orgId, "--name", "", "--disable"),
      await org("remote", "update", orgId, "--name", "", "--disable"),
    ];
    expect(local.code).toBe(2);
    expect(remote.code).toBe(2);
    const message = local.stderr.trim().replace(/^latchkey: /, "");
    expect(message).toMatch(/^Invalid request: \/name /);
    expect(remote.stderr).toContain(message);
    expect(JSON.parse((await org("local", "show", orgId, "--json")).stdout)).toMatchObject({
      name: "acme",
      enabled: true,
    });
  });

  test("no change, or --disable with --enable, is a usage error; an unknown organization is not found", async () => {
    const { orgId, org } = await setUp();
    expect(await org("local", "update", orgId)).toMatchObject({ code: 2 });
    expect((await org("local", "update", orgId, "--disable", "--enable")).stderr).toContain("give one");
    for (const mode of ["local", "remote"] as const) {
      const missing = await org(mode, "show", "org_missing");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("No organization org_missing");
    }
  });

  test("org list --url lists the same organizations, oldest first, without key counts", async () => {
    const { orgId, org } = await setUp();
    const second = await org("remote", "create", "--name", "globex", "--json");
    const secondId = JSON.parse(second.stdout).organization.id as string;
    const [local, remote] = [
      JSON.parse((await org("local", "list", "--json")).stdout),
      JSON.parse((await org("remote", "list", "--json")).stdout),
    ];
    expect(local.map((row: { id: string }) => row.id)).toEqual([orgId, secondId]);
    expect(remote).toEqual(local.map((row: { key_count: number }) => ({ ...row, key_count: null })));
    const table = await org("remote", "list");
    expect(table.stdout).toMatch(/acme\s+-\s/);
    expect(table.stdout).toContain("2 organizations");
  });
});
