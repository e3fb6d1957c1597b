import { join } from "node:path";
import { expect, test } from "vitest";
import { latchkey, latchkeyStatus, tempDir } from "../helpers/processes.js";

test("every operator change is recorded as operator; latchkey audit prints it newest first, as text or JSON", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const created = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout);
  const org = created.organization.id;
  await latchkey(
    ["org", "limits", "--org", org, "--max-keys", "5", "--group", "proxy:read", "--quota", "300"],
    env,
  );
  // Showing limits or a plan changes nothing and records nothing.
  await latchkey(["org", "limits", "--org", org], env);
  await latchkey(["org", "plan", "--org", org], env);
  await latchkey(["org", "plan", "--org", org, "--image-credits", "80"], env);
  const token = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "gw", "--json"], env)).stdout,
  );
  await latchkey(["service-token", "revoke", token.id], env);
  expect(
    (await latchkeyStatus(["org", "plan", "--org", "org_missing", "--overages", "on"], env)).code,
  ).not.toBe(0);

  const trail = JSON.parse((await latchkey(["audit", "--org", org, "--json"], env)).stdout);
  expect(trail.map((entry: { action: string; actor: string }) => [entry.action, entry.actor])).toEqual([
    ["plan.update", "operator"],
    ["organization.limits.update", "operator"],
    ["api_key.create", "operator"],
    ["organization.create", "operator"],
  ]);
  expect(trail[0]).toMatchObject({ before: { image_credits: null }, after: { image_credits: 80 } });
  expect(trail[1]).toMatchObject({
    organization_id: org,
    target_id: org,
    before: { max_keys: null, quotas: {} },
    after: { max_keys: 5, quotas: { "proxy:read": 300 } },
  });
  expect(trail[2]).toMatchObject({ target_id: created.key.id, after: { api_id: created.key.api_id } });

  const text = (await latchkey(["audit", "--org", org], env)).stdout.trim().split("\n");
  expect(text).toHaveLength(4);
  expect(text[0]).toMatch(
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z +operator +plan\.update +org_\w+ +image_credits: null -> 80$/,
  );
  expect(text[3]).toContain("organization.create");

  const deployment = JSON.parse((await latchkey(["audit", "--deployment", "--json"], env)).stdout);
  expect(deployment).toMatchObject([
    { action: "service_token.revoke", organization_id: null, target_id: token.id, after: { name: "gw" } },
    { action: "service_token.create", before: null },
  ]);
  const everything = JSON.stringify([trail, deployment]);
  expect(everything).not.toContain(created.key.api_key);
  expect(everything).not.toContain(token.token);
}, 90_000);

test("audit --since keeps later entries; bad or missing options are refused with a non-zero exit", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const org = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout)
    .organization.id;
  const future = (await latchkey(["audit", "--org", org, "--since", "2999-01-01T00:00:00Z"], env)).stdout;
  expect(future).toBe("No audit entries.\n");
  const past = JSON.parse(
    (await latchkey(["audit", "--org", org, "--since", "2000-01-01T00:00:00+02:00", "--json"], env)).stdout,
  );
  expect(past).toHaveLength(2);

  const badSince = await latchkeyStatus(["audit", "--org", org, "--since", "yesterday"], env);
  expect(badSince.code).not.toBe(0);
  expect(badSince.stderr).toContain("RFC 3339");
  const neither = await latchkeyStatus(["audit"], env);
  expect(neither.code).not.toBe(0);
  expect(neither.stderr).toContain("--org");
  const unknown = await latchkeyStatus(["audit", "--org", "org_missing"], env);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain("No organization org_missing");
}, 60_000);
