import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, onTestFinished, test } from "vitest";
import { basicAuth, buildTestApp } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { latchkey, latchkeyStatus, tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

const run = promisify(execFile);
const CONVERTER = new URL("../../examples/import/unkey-to-latchkey.mjs", import.meta.url).pathname;

/**
 * A fresh SQLite database with one organization, made by the CLI, and a server started on it (which
 * records how it hashes secrets: the import refuses before one has); the organization's id and owner key.
 */
async function organization(env: Record<string, string> = {}) {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir, "latchkey.db")}`;
  const allEnv = { LATCHKEY_DATABASE_URL: databaseUrl, ...env };
  const created = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], allEnv)).stdout);
  const server = await buildTestApp({ env: allEnv });
  return { dir, env: allEnv, orgId: created.organization.id as string, owner: created.key, server };
}

/** Keys as an Unkey-style export has them: the secret's SHA-256 in base64, the plaintext not kept. */
function unkeyExport(count: number) {
  const secrets = Array.from({ length: count }, () => `sk_live_${randomBytes(18).toString("base64url")}`);
  const keys = secrets.map((secret, index) => ({
    id: `key_unkey${index}${randomBytes(6).toString("hex")}`,
    name: `migrated ${index}`,
    hash: createHash("sha256").update(secret).digest("base64"),
    start: secret.slice(0, 10),
    meta: { plan: "pro" },
    expires: index === 0 ? Date.parse("2099-01-01T00:00:00.000Z") : null,
    permissions: ["images:create", "api_keys:read"],
    enabled: true,
  }));
  return { secrets, keys };
}

async function keyCount(env: Record<string, string>): Promise<number> {
  const orgs = JSON.parse((await latchkey(["org", "list", "--json"], env)).stdout);
  return orgs[0].key_count;
}

test("keys exported from Unkey (hashes only) are imported and authenticate with their old secrets, over REST and authorize", async () => {
  const { dir, env, orgId, owner, server: testApp } = await organization();
  const exported = unkeyExport(3);
  const exportFile = join(dir, "unkey-export.json");
  writeFileSync(exportFile, JSON.stringify({ keys: exported.keys }));
  const lines = (await run(process.execPath, [CONVERTER, exportFile])).stdout;
  const file = join(dir, "keys.jsonl");
  writeFileSync(file, lines);

  const dry = await latchkey(["keys", "import", "--org", orgId, "--file", file, "--dry-run", "--json"], env);
  expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, keys: expect.any(Array) });
  expect(await keyCount(env)).toBe(1);

  const imported = JSON.parse(
    (await latchkey(["keys", "import", "--org", orgId, "--file", file, "--json"], env)).stdout,
  );
  expect(imported.keys.map((key: { api_id: string }) => key.api_id)).toEqual(
    exported.keys.map((key) => key.id),
  );
  expect(imported.keys.every((key: { secret_scheme: string }) => key.secret_scheme === "sha256")).toBe(true);
  expect(await keyCount(env)).toBe(4);

  const { token } = await testApp.services.serviceTokens.create("platform");
  for (const [index, key] of exported.keys.entries()) {
    const secret = exported.secrets[index] as string;
    const id = imported.keys[index].id;
    const read = await testApp.app.inject({ url: `/v1/api-keys/${id}`, headers: basicAuth(key.id, secret) });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      api_id: key.id,
      name: key.name,
      leaked_at: null,
      expires_at: index === 0 ? "2099-01-01T00:00:00.000Z" : null,
      metadata: { plan: "pro" },
    });
    const decision = await testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token },
      payload: { authorization: basicAuth(key.id, secret).authorization, permission: "images:create" },
    });
    expect(decision.json()).toMatchObject({ allowed: true, organization_id: orgId });
    // A wrong secret is still a 401.
    const wrong = await testApp.app.inject({
      url: `/v1/api-keys/${id}`,
      headers: basicAuth(key.id, `${secret}x`),
    });
    expect(wrong.statusCode).toBe(401);
  }

  // The imported metadata is searchable like a created key's.
  const found = await testApp.app.inject({
    url: "/v1/api-keys?metadata[plan]=pro",
    headers: basicAuth(owner.api_id, owner.api_key),
  });
  expect(
    found
      .json()
      .data.map((key: { api_id: string }) => key.api_id)
      .sort(),
  ).toEqual(exported.keys.map((key) => key.id).sort());

  const trail = await testApp.app.inject({
    url: "/v1/audit?count=10",
    headers: basicAuth(owner.api_id, owner.api_key),
  });
  const imports = trail.json().data.filter((entry: { action: string }) => entry.action === "api_key.import");
  expect(imports).toHaveLength(3);
  expect(imports[0]).toMatchObject({ actor: "operator", after: { secret_scheme: "sha256" } });
  // The trail keeps no hash, in either encoding.
  const firstHash = exported.keys[0]?.hash as string;
  expect(trail.body).not.toContain(firstHash);
  expect(trail.body).not.toContain(Buffer.from(firstHash, "base64").toString("hex"));
});

test("plaintext secrets are hashed the server's way (pepper included) and authenticate", async () => {
  const pepper = { LATCHKEY_SECRET_PEPPER: "sixteen-characters-pepper" };
  const { dir, env, orgId, server: testApp } = await organization(pepper);
  const file = join(dir, "keys.jsonl");
  const secret = `legacy_${randomBytes(16).toString("hex")}`;
  writeFileSync(file, `${JSON.stringify({ name: "legacy", permissions: ["api_keys:read"], secret })}\n`);
  const imported = JSON.parse(
    (await latchkey(["keys", "import", "--org", orgId, "--file", file, "--json"], env)).stdout,
  );
  const [key] = imported.keys;
  expect(key).toMatchObject({ api_id: expect.stringMatching(/^lkid_/), secret_scheme: "server" });
  const read = await testApp.app.inject({
    url: `/v1/api-keys/${key.id}`,
    headers: basicAuth(key.api_id, secret),
  });
  expect(read.statusCode).toBe(200);
});

test("bad lines are reported by line number and field, exit 2, and nothing is stored", async () => {
  const { dir, env, orgId } = await organization();
  const good = (apiId: string) => ({
    name: "ok",
    permissions: ["usage:read"],
    api_id: apiId,
    secret_sha256: randomBytes(32).toString("hex"),
  });
  const lines = [
    good("first"),
    { ...good("second"), permissions: ["usage:read", "images:fly"] },
    { ...good("third"), secret_sha256: "not-a-hash" },
    good("first"),
    { ...good("fifth"), api_id: "has:colon" },
    { ...good("sixth"), enabled: false },
  ];
  const file = join(dir, "keys.jsonl");
  // Lines 9 and 10: one secret twice, in plain text and as its SHA-256.
  const secret = `plain_${randomBytes(12).toString("hex")}`;
  const twice = [
    { name: "plain", permissions: [], secret },
    { name: "hashed", permissions: [], secret_sha256: createHash("sha256").update(secret).digest("hex") },
  ];
  const text = [...lines, null, "{not json", ...twice].map((line) =>
    line === null ? "" : typeof line === "string" ? line : JSON.stringify(line),
  );
  writeFileSync(file, `${text.join("\n")}\n`);
  const result = await latchkeyStatus(["keys", "import", "--org", orgId, "--file", file], env);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("nothing was stored");
  expect(result.stderr).toContain('line 2 /permissions/1 unknown permission "images:fly"');
  expect(result.stderr).toContain("line 3 /secret_sha256");
  expect(result.stderr).toContain("line 4 /api_id repeats the api_id of line 1");
  expect(result.stderr).toContain("line 5 /api_id");
  expect(result.stderr).toContain("line 6 /enabled");
  expect(result.stderr).toContain("line 8 / is not JSON");
  expect(result.stderr).toContain("line 10 /secret_sha256 repeats the secret of line 9");
  expect(await keyCount(env)).toBe(1);
});

test("an api_id already stored, the quota, and bad expiries refuse the whole file", async () => {
  const { dir, env, orgId, owner } = await organization();
  const file = join(dir, "keys.jsonl");
  const write = (...lines: object[]) =>
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n"));
  const line = (extra: object = {}) => ({
    name: null,
    permissions: [],
    secret_sha256: randomBytes(32).toString("hex"),
    ...extra,
  });

  write(line(), line({ api_id: owner.api_id }));
  const taken = await latchkeyStatus(["keys", "import", "--org", orgId, "--file", file, "--dry-run"], env);
  expect(taken.code).toBe(2);
  expect(taken.stderr).toContain("line 2 /api_id is already the api_id of a stored key");

  await latchkey(["org", "limits", "--org", orgId, "--max-keys", "2"], env);
  write(line(), line());
  const quota = await latchkeyStatus(["keys", "import", "--org", orgId, "--file", file], env);
  expect(quota.code).toBe(1);
  expect(quota.stderr).toContain("needs 2 key slots");
  expect(await keyCount(env)).toBe(1);

  write(
    line({ expires_at: "2099-01-01T00:00:00Z", metadata: { team: "a" } }),
    line({ expires_at: "yesterday" }),
    line({ expires_at: "2020-01-01T00:00:00Z" }),
  );
  const badExpiries = await latchkeyStatus(["keys", "import", "--org", orgId, "--file", file], env);
  expect(badExpiries.code).toBe(2);
  expect(badExpiries.stderr).not.toContain("line 1");
  expect(badExpiries.stderr).toContain("line 2 /expires_at");
  expect(badExpiries.stderr).toContain("line 3 /expires_at");
  expect(await keyCount(env)).toBe(1);
});

describeWithServices(["postgres", "redis"], "keys import on PostgreSQL + Redis", (services) => {
  test("imported keys authenticate with their old secrets on a node over PostgreSQL + Redis", async () => {
    const schema = await createPostgresSchema(services.postgres);
    onTestFinished(() => schema.drop());
    const env = {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_BOOTSTRAP: "off",
      LATCHKEY_REDIS_URL: services.redis,
      LATCHKEY_REDIS_PREFIX: `lk-import-${randomBytes(6).toString("hex")}`,
    };
    const orgId = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout)
      .organization.id;
    // A node starts first: the import hashes as the deployment's servers do, and refuses before one has.
    const testApp = await buildTestApp({ env });
    const exported = unkeyExport(2);
    const dir = tempDir();
    writeFileSync(join(dir, "export.json"), JSON.stringify(exported.keys));
    writeFileSync(
      join(dir, "keys.jsonl"),
      (await run(process.execPath, [CONVERTER, join(dir, "export.json")])).stdout,
    );
    const imported = JSON.parse(
      (await latchkey(["keys", "import", "--org", orgId, "--file", join(dir, "keys.jsonl"), "--json"], env))
        .stdout,
    );
    const { token } = await testApp.services.serviceTokens.create("platform");
    for (const [index, key] of exported.keys.entries()) {
      const auth = basicAuth(key.id, exported.secrets[index] as string);
      const read = await testApp.app.inject({
        url: `/v1/api-keys/${imported.keys[index].id}`,
        headers: auth,
      });
      expect(read.statusCode).toBe(200);
      const decision = await testApp.app.inject({
        method: "POST",
        url: "/v1/authorize",
        headers: { "x-latchkey-service-token": token },
        payload: { authorization: auth.authorization, permission: "images:create" },
      });
      expect(decision.json()).toMatchObject({ allowed: true, organization_id: orgId });
    }
  });
});
