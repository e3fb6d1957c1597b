import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { RESOURCE_FAMILIES } from "../../src/domain/resource-families.js";
import { startRealServer } from "../client/real-server.js";
import { keyWith } from "../helpers/http-keys.js";
import { cliEnv, runCli } from "./run-cli.js";

/** `latchkey proxies|storage-destinations|og-configs ...` as separate processes against a real server. */

describe.each(RESOURCE_FAMILIES)("latchkey $command", (family) => {
  const cmd = family.command;

  // A dozen processes one after the other: slow on a loaded machine, hence the long limit.
  test(
    "create, get, update, list and delete end to end, with --json for scripts",
    { timeout: 120_000 },
    async () => {
      const server = await startRealServer();
      const env = cliEnv(server.url, await server.owner());

      const create = await runCli(
        [cmd, "create", "--name", "edge", "--settings", '{"region":"eu-west-1"}', "--json"],
        env,
      );
      expect(create).toMatchObject({ code: 0, stderr: "" });
      const created = JSON.parse(create.stdout);
      expect(created).toMatchObject({ name: "edge", enabled: true, settings: { region: "eu-west-1" } });
      expect(created.id.startsWith(family.idPrefix)).toBe(true);

      // Only what a flag mentions changes: the settings are kept.
      const update = await runCli(
        [cmd, "update", created.id, "--name", "edge 2", "--disabled", "--json"],
        env,
      );
      expect(update.code).toBe(0);
      expect(JSON.parse(update.stdout)).toMatchObject({
        name: "edge 2",
        enabled: false,
        settings: { region: "eu-west-1" },
      });

      const dir = await mkdtemp(join(tmpdir(), "latchkey-cli-"));
      const file = join(dir, "settings.json");
      await writeFile(file, '{"bucket": "images"}');
      const fromFile = await runCli(
        [cmd, "update", created.id, "--settings-file", file, "--enabled", "--json"],
        env,
      );
      expect(JSON.parse(fromFile.stdout)).toMatchObject({
        name: "edge 2",
        enabled: true,
        settings: { bucket: "images" },
      });

      const get = await runCli([cmd, "get", created.id], env);
      expect(get.code).toBe(0);
      expect(get.stdout).toContain(`id:         ${created.id}`);
      expect(get.stdout).toContain('settings:   {"bucket":"images"}');

      await runCli([cmd, "create", "--name", "second"], env);
      const list = await runCli([cmd, "list", "--page-size", "1", "--json"], env);
      expect(JSON.parse(list.stdout).map((record: { name: string }) => record.name)).toEqual([
        "second",
        "edge 2",
      ]);
      const table = await runCli([cmd, "list"], env);
      expect(table.stdout).toMatch(/^ID\s+STATE\s+NAME\s+SETTINGS\s+CREATED\n/);
      expect(table.stdout).toContain(`2 ${family.plural}\n`);

      const remove = await runCli([cmd, "delete", created.id, "--json"], env);
      expect(remove.code).toBe(0);
      expect(JSON.parse(remove.stdout)).toEqual({ id: created.id, deleted: true });
      expect((await runCli([cmd, "delete", created.id], env)).stdout).toBe(`Deleted ${created.id}.\n`);
      const gone = await runCli([cmd, "get", created.id], env);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain("(404 not_found");
    },
  );

  test(
    "exit statuses: 2 for usage and rejected input, 3 for a missing permission",
    { timeout: 120_000 },
    async () => {
      const server = await startRealServer();
      const owner = await server.owner();
      const env = cliEnv(server.url, owner);
      const noName = await runCli([cmd, "create"], env);
      expect(noName.code).toBe(2);
      expect(noName.stderr).toContain("--name");
      const badJson = await runCli([cmd, "create", "--name", "x", "--settings", "[1]"], env);
      expect(badJson.code).toBe(2);
      expect(badJson.stderr).toContain("JSON object");
      const tooLong = await runCli([cmd, "create", "--name", "n".repeat(256)], env);
      expect(tooLong.code).toBe(2);
      expect(tooLong.stderr).toContain("400 invalid_request");
      const reader = await keyWith(server.test, owner, [family.permissions.read]);
      const denied = await runCli([cmd, "create", "--name", "x"], cliEnv(server.url, reader));
      expect(denied.code).toBe(3);
      expect(denied.stderr).toContain(family.permissions.createUpdate);
      const nothing = await runCli([cmd, "update", `${family.idPrefix}${"0".repeat(22)}`], env);
      expect(nothing.code).toBe(2);
    },
  );
});

test("latchkey storage-destinations aws-external-id prints the same id every time", async () => {
  const server = await startRealServer();
  const env = cliEnv(server.url, await server.owner());
  const first = await runCli(["storage-destinations", "aws-external-id"], env);
  expect(first.code).toBe(0);
  const json = await runCli(["storage-destinations", "aws-external-id", "--json"], env);
  expect(JSON.parse(json.stdout)).toEqual({ external_id: first.stdout.trim() });
});

test("a plan without proxies exits 3 with plan_restricted", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  await server.test.services.plans.change(owner.orgId, { proxies: false });
  const result = await runCli(["proxies", "list"], cliEnv(server.url, owner));
  expect(result.code).toBe(3);
  expect(result.stderr).toContain("plan_restricted");
});
