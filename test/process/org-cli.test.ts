import { join } from "node:path";
import { expect, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { latchkey, latchkeyStatus, tempDir } from "../helpers/processes.js";

test("org create --json prints exactly the organization and its owner key, which authenticates", async () => {
  const databaseUrl = `sqlite:${join(tempDir(), "latchkey.db")}`;
  const { stdout } = await latchkey(["org", "create", "--name", "acme", "--json"], {
    LATCHKEY_DATABASE_URL: databaseUrl,
  });
  const output = JSON.parse(stdout);
  expect(Object.keys(output).sort()).toEqual(["key", "organization"]);
  expect(output.organization).toEqual({ id: expect.stringMatching(/^org_/), name: "acme" });
  expect(output.key).toMatchObject({ all_future_permissions: true, enabled: true });
  expect(output.key.api_key).toMatch(/^lksk_/);

  const { app } = await buildTestApp({ env: { LATCHKEY_DATABASE_URL: databaseUrl } });
  const auth = `Basic ${Buffer.from(`${output.key.api_id}:${output.key.api_key}`).toString("base64")}`;
  const read = await app.inject({ url: `/v1/api-keys/${output.key.id}`, headers: { authorization: auth } });
  expect(read.statusCode).toBe(200);
});

test("org limits overrides a group's quota and the key quota; 'default' clears them", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const org = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout)
    .organization.id;
  const set = await latchkey(
    [
      "org",
      "limits",
      "--org",
      org,
      "--group",
      "api-key:write",
      "--quota",
      "250",
      "--max-keys",
      "500",
      "--json",
    ],
    env,
  );
  expect(JSON.parse(set.stdout)).toMatchObject({
    max_keys: 500,
    quotas: { "api-key:write": 250, "api-key:read": 100 },
  });
  const cleared = await latchkey(
    ["org", "limits", "--org", org, "--group", "api-key:write", "--quota", "default", "--json"],
    env,
  );
  expect(JSON.parse(cleared.stdout)).toMatchObject({ max_keys: 500, quotas: { "api-key:write": 20 } });
});

test("org limits refuses an unknown group or organization with a message and a non-zero exit", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const badGroup = await latchkeyStatus(
    ["org", "limits", "--org", "org_x", "--group", "api-key:delete", "--quota", "5"],
    env,
  );
  expect(badGroup.code).not.toBe(0);
  expect(badGroup.stderr).toContain("api-key:write");
  const noOrg = await latchkeyStatus(["org", "limits", "--org", "org_missing"], env);
  expect(noOrg.code).not.toBe(0);
  expect(noOrg.stderr).toContain("No organization org_missing");
});

test("org policy sets and clears the longest key lifetime; new keys get it as their expiry", async () => {
  const databaseUrl = `sqlite:${join(tempDir(), "latchkey.db")}`;
  const env = { LATCHKEY_DATABASE_URL: databaseUrl };
  const created = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout);
  const org = created.organization.id;
  const set = await latchkey(["org", "policy", "--org", org, "--max-key-lifetime", "90", "--json"], env);
  expect(JSON.parse(set.stdout)).toEqual({ organization: org, max_key_lifetime_days: 90 });

  const { app } = await buildTestApp({ env });
  const auth = `Basic ${Buffer.from(`${created.key.api_id}:${created.key.api_key}`).toString("base64")}`;
  const made = await app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: { authorization: auth },
    payload: { permissions: [] },
  });
  const key = made.json();
  expect(Date.parse(key.expires_at) - Date.parse(key.created_at)).toBe(90 * 86_400_000);

  const cleared = await latchkey(
    ["org", "policy", "--org", org, "--max-key-lifetime", "none", "--json"],
    env,
  );
  expect(JSON.parse(cleared.stdout)).toMatchObject({ max_key_lifetime_days: null });
  const bad = await latchkeyStatus(["org", "policy", "--org", org, "--max-key-lifetime", "0"], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain("days from 1");
  const audit = JSON.parse((await latchkey(["audit", "--org", org, "--json"], env)).stdout);
  expect(JSON.stringify(audit)).toContain("max_key_lifetime_days");
});
