import { expect, test } from "vitest";
import type { KeyRecord } from "@latchkey/client";
import { startRealServer } from "../client/real-server.js";
import { cliEnv, runCli } from "./run-cli.js";

test("create, get, update, disable, enable and list work end to end, with --json for scripts", async () => {
  const server = await startRealServer();
  const env = cliEnv(server.url, await server.owner());

  const create = await runCli(
    [
      "keys",
      "create",
      "--permission",
      "images:create",
      "--permission",
      "usage:read",
      "--name",
      "renderer",
      "--description",
      "renders invoices",
      "--json",
    ],
    env,
  );
  expect(create).toMatchObject({ code: 0, stderr: "" });
  const created = JSON.parse(create.stdout);
  expect(created).toMatchObject({
    name: "renderer",
    permissions: ["images:create", "usage:read"],
    enabled: true,
  });
  expect(created.api_key).toMatch(/^lksk_/);

  // Only the name changes: the description and permissions the person did not mention are kept.
  const update = await runCli(
    ["keys", "update", created.id, "--name", "invoice renderer", "--disabled", "--json"],
    env,
  );
  expect(update.code).toBe(0);
  expect(JSON.parse(update.stdout)).toMatchObject({
    name: "invoice renderer",
    description: "renders invoices",
    permissions: ["images:create", "usage:read"],
    enabled: false,
  });

  const enable = await runCli(["keys", "enable", created.id, "--json"], env);
  expect(JSON.parse(enable.stdout)).toMatchObject({
    name: "invoice renderer",
    description: "renders invoices",
    permissions: ["images:create", "usage:read"],
    enabled: true,
  });

  const disable = await runCli(["keys", "disable", created.id], env);
  expect(disable).toMatchObject({ code: 0, stdout: `Disabled ${created.id}.\n` });

  const [listed, table, filtered] = await Promise.all([
    runCli(["keys", "list", "--all", "--json", "--page-size", "1"], env),
    runCli(["keys", "list", "--all"], env),
    runCli(["keys", "list", "--with-permission", "images:create", "--json"], env),
  ]);
  const all: KeyRecord[] = JSON.parse(listed.stdout);
  expect(all.map((key) => [key.name, key.enabled])).toEqual([
    ["invoice renderer", false],
    ["Owner key", true],
  ]);
  expect(table.stdout).toMatch(/^ID +API_ID +STATE +NAME +PERMISSIONS +CREATED\n/);
  expect(table.stdout).toContain(`${created.id}  ${created.api_id}  disabled  invoice renderer`);
  expect(table.stdout).toContain("all, current and future");
  expect(table.stdout).not.toContain("api_key");
  expect(table.stdout.trimEnd().endsWith("2 keys")).toBe(true);
  // The disabled key is left out without --all; the owner key allows images:create too.
  expect(JSON.parse(filtered.stdout).map((key: KeyRecord) => key.name)).toEqual(["Owner key"]);
});

test("failures are one line on stderr with the server's message and a documented exit status", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const env = cliEnv(server.url, owner);

  const [badFlag, missingCredentials, wrongSecret, unknownKey, badPermission, nothingToChange] =
    await Promise.all([
      runCli(["keys", "list", "--bogus"], env),
      runCli(["keys", "list"], { LATCHKEY_URL: server.url }),
      runCli(["keys", "list"], { ...env, LATCHKEY_API_KEY: "lksk_wrong" }),
      runCli(["keys", "get", "key_0000000000000000000000"], env),
      runCli(["keys", "create", "--permission", "images:fly"], env),
      runCli(["keys", "update", owner.id], env),
    ]);

  expect(badFlag).toMatchObject({ code: 2, stderr: "latchkey: unknown option '--bogus'\n" });
  expect(missingCredentials.code).toBe(2);
  expect(missingCredentials.stderr).toBe(
    "latchkey: Missing LATCHKEY_API_ID (or --api-id), LATCHKEY_API_KEY (or --api-key).\n",
  );
  expect(wrongSecret.code).toBe(3);
  expect(wrongSecret.stderr).toMatch(
    /^latchkey: Authentication required: .* \(401 unauthorized, request [-\w]+\)\n$/,
  );
  expect(unknownKey.code).toBe(1);
  expect(unknownKey.stderr).toMatch(/^latchkey: No API key with id "key_0{22}" exists .*\(404 not_found, /);
  expect(badPermission.code).toBe(2);
  expect(badPermission.stderr).toContain('unknown permission "images:fly"');
  expect(nothingToChange.code).toBe(2);
  for (const result of [
    badFlag,
    missingCredentials,
    wrongSecret,
    unknownKey,
    badPermission,
    nothingToChange,
  ]) {
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toHaveLength(2); // one line and its newline
  }
});
