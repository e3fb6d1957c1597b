import { describe, expect, test, vi } from "vitest";
import { inBothModes, type Mode, newSqliteDatabase } from "./both-modes.js";

vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey org credits grant|list`: credit grants beside the database and through a running server's
 * provisioning API (`--url`, LATCHKEY_SERVICE_TOKEN), with the same checks and output.
 */

/** A SQLite database with an organization and a provision-scoped token (made by the CLI), and a server on it. */
async function setUp() {
  const { orgId, cli } = await inBothModes(newSqliteDatabase());
  const credits = (mode: Mode, ...args: string[]) => cli(mode, "org", "credits", ...args);
  const listed = async (mode: Mode) => JSON.parse((await credits(mode, "list", orgId, "--json")).stdout);
  return { orgId, credits, listed };
}

describe("org credits, on SQLite", () => {
  test.each(["local", "remote"] as const)(
    "%s: a grant is stored with its expiry and reason, and both modes list it alike",
    async (mode) => {
      const { orgId, credits, listed } = await setUp();
      const granted = await credits(
        mode,
        "grant",
        orgId,
        "--credits",
        "500",
        "--expires-at",
        "2099-01-01T00:00:00Z",
        "--reason",
        "invoice 118",
        "--json",
      );
      expect(granted).toMatchObject({ code: 0, stderr: "" });
      const grant = JSON.parse(granted.stdout);
      expect(grant).toMatchObject({
        credits: 500,
        remaining: 500,
        expires_at: "2099-01-01T00:00:00.000Z",
        reason: "invoice 118",
      });
      expect(grant.id).toMatch(/^cgr_/);

      const second = await credits(mode, "grant", orgId, "--credits", "20");
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/^Granted 20 credits to org_\w+ \(cgr_\w+\), never expiring\.\n$/);

      const local = await listed("local");
      expect(local).toHaveLength(2);
      expect(local[1]).toEqual(grant);
      expect(await listed("remote")).toEqual(local);
      const table = await credits(mode, "list", orgId);
      expect(table.stdout).toContain(grant.id);
      expect(table.stdout).toContain("2 credit grants");
    },
  );

  test("0, a negative, a fraction or text is refused with the API's message in both modes, and nothing is stored", async () => {
    const { orgId, credits, listed } = await setUp();
    for (const value of ["0", "-5", "2.5", "many"]) {
      const [local, remote] = [
        await credits("local", "grant", orgId, "--credits", value),
        await credits("remote", "grant", orgId, "--credits", value),
      ];
      expect(local.code).toBe(2);
      expect(remote.code).toBe(2);
      const message = local.stderr.trim().replace(/^latchkey: /, "");
      expect(message).toMatch(/^Invalid request: \/credits must be/);
      expect(remote.stderr).toContain(message);
    }
    const past = await credits(
      "local",
      "grant",
      orgId,
      "--credits",
      "5",
      "--expires-at",
      "2001-01-01T00:00:00Z",
    );
    expect(past.code).toBe(2);
    expect(past.stderr).toContain("expires_at must be in the future");
    expect(await listed("local")).toEqual([]);
  });

  test.each(["local", "remote"] as const)(
    "%s: an unknown organization is not found (exit 1)",
    async (mode) => {
      const { credits } = await setUp();
      const missing = await credits(mode, "grant", "org_missing", "--credits", "5");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("No organization org_missing");
    },
  );
});
