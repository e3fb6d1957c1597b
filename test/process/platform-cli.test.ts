import { createHash } from "node:crypto";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { latchkey, latchkeyStatus, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

// Each CLI run is a new Node process (about a second on a loaded machine), and some tests make a dozen.
vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey service-token ...` and `latchkey org plan ...` as an operator runs them: real processes of
 * the built CLI beside a database, and a real server process reading the same database.
 */

function databaseEnv(): Record<string, string> {
  return { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`, LATCHKEY_BOOTSTRAP: "off" };
}

/** An organization made with `org create`, and its owner key's Authorization header. */
async function createOrg(env: Record<string, string>): Promise<{ orgId: string; authorization: string }> {
  const { organization, key } = JSON.parse(
    (await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout,
  );
  const authorization = `Basic ${Buffer.from(`${key.api_id}:${key.api_key}`).toString("base64")}`;
  return { orgId: organization.id, authorization };
}

function authorize(baseUrl: string, serviceToken: string, authorization: string, credits?: number) {
  return fetch(`${baseUrl}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-latchkey-service-token": serviceToken },
    body: JSON.stringify({ authorization, permission: "images:create", ...(credits ? { credits } : {}) }),
  });
}

test("service-token create --json prints exactly {id, name, token}; the token works until revoke", async () => {
  const env = databaseEnv();
  const { authorization } = await createOrg(env);
  const created = await latchkey(["service-token", "create", "--name", "images", "--json"], env);
  const output = JSON.parse(created.stdout);
  expect(Object.keys(output)).toEqual(["id", "name", "token"]);
  expect(output).toEqual({
    id: expect.stringMatching(/^stk_/),
    name: "images",
    token: expect.stringMatching(/^lkst_/),
  });

  const server = await startServer(env, await freePort());
  const allowed = await authorize(server.baseUrl, output.token, authorization);
  expect(allowed.status).toBe(200);
  expect(await allowed.json()).toMatchObject({ allowed: true, status: 200 });

  const revoked = await latchkey(["service-token", "revoke", output.id], env);
  expect(revoked.stdout).toContain(output.id);
  const refused = await authorize(server.baseUrl, output.token, authorization);
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ code: "invalid_service_token" });
});

test("service-token list shows ids, names and states, never a token or its hash", async () => {
  const env = databaseEnv();
  const first = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "images", "--json"], env)).stdout,
  );
  const second = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "proxies", "--json"], env)).stdout,
  );
  await latchkey(["service-token", "revoke", second.id], env);

  const text = (await latchkey(["service-token", "list"], env)).stdout;
  expect(text).toMatch(new RegExp(`${first.id}\\s+images\\s+created \\S+\\s+active`));
  expect(text).toMatch(new RegExp(`${second.id}\\s+proxies\\s+created \\S+\\s+revoked \\S+`));
  const json = JSON.parse((await latchkey(["service-token", "list", "--json"], env)).stdout);
  expect(json).toEqual(
    expect.arrayContaining([
      {
        id: first.id,
        name: "images",
        scopes: ["authorize"],
        created_at: expect.any(String),
        revoked_at: null,
      },
      {
        id: second.id,
        name: "proxies",
        scopes: ["authorize"],
        created_at: expect.any(String),
        revoked_at: expect.any(String),
      },
    ]),
  );
  for (const output of [text, JSON.stringify(json)]) {
    for (const { token } of [first, second]) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(createHash("sha256").update(token).digest("hex"));
    }
    expect(output).not.toMatch(/lkst_|[0-9a-f]{64}/);
  }
});

test("service-token create --scope names what a token may do; list shows it; an unknown scope is a usage error", async () => {
  const env = databaseEnv();
  const both = JSON.parse(
    (
      await latchkey(
        ["service-token", "create", "--name", "billing", "--scope", "provision, authorize", "--json"],
        env,
      )
    ).stdout,
  );
  const provision = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "signup", "--scope", "provision", "--json"], env))
      .stdout,
  );
  const text = (await latchkey(["service-token", "list"], env)).stdout;
  expect(text).toMatch(
    new RegExp(`${both.id}\\s+billing\\s+created \\S+\\s+active\\s+scopes authorize,provision\\n`),
  );
  expect(text).toMatch(
    new RegExp(`${provision.id}\\s+signup\\s+created \\S+\\s+active\\s+scopes provision\\n`),
  );
  const json = JSON.parse((await latchkey(["service-token", "list", "--json"], env)).stdout);
  expect(json.map((token: { scopes: string[] }) => token.scopes)).toEqual([
    ["authorize", "provision"],
    ["provision"],
  ]);

  const { authorization } = await createOrg(env);
  const server = await startServer(env, await freePort());
  const refused = await authorize(server.baseUrl, provision.token, authorization);
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ code: "missing_scope" });
  const listed = await fetch(`${server.baseUrl}/v1/admin/organizations`, {
    headers: { "x-latchkey-service-token": provision.token },
  });
  expect(listed.status).toBe(200);

  const bad = await latchkeyStatus(["service-token", "create", "--name", "x", "--scope", "admin"], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain("unknown scope admin");
  expect(JSON.parse((await latchkey(["service-token", "list", "--json"], env)).stdout)).toHaveLength(2);
});

test("service-token revoke of an unknown id, or create with a blank name, is a one-line error", async () => {
  const env = databaseEnv();
  const unknown = await latchkeyStatus(["service-token", "revoke", "stk_missing"], env);
  expect(unknown.code).not.toBe(0);
  // One line, naming the database it looked in.
  expect(unknown.stderr).toMatch(
    /^latchkey: No service token with id "stk_missing"\. \(database: SQLite \S+\)\n$/,
  );
  const blank = await latchkeyStatus(["service-token", "create", "--name", " "], env);
  expect(blank.code).not.toBe(0);
  expect(blank.stderr.trim().split("\n")).toHaveLength(1);
  expect(blank.stderr).toContain("--name");
  expect(JSON.parse((await latchkey(["service-token", "list", "--json"], env)).stdout)).toEqual([]);
});

test("org plan shows the plan, changes it with flags, and --json prints exactly the plan", async () => {
  const env = databaseEnv();
  const { orgId } = await createOrg(env);
  const shown = (await latchkey(["org", "plan", "--org", orgId], env)).stdout;
  expect(shown).toContain(`Plan of ${orgId}`);
  expect(shown).toMatch(/image credits:\s+50 per billing period \(overages off\)/);

  const changed = await latchkey(
    [
      "org",
      "plan",
      "--org",
      orgId,
      "--image-credits",
      "7",
      "--overages",
      "on",
      "--period-anchor",
      "2026-01-31T00:00:00Z",
      "--max-batch-size",
      "4",
      "--json",
    ],
    env,
  );
  const plan = JSON.parse(changed.stdout);
  expect(Object.keys(plan)).toEqual([
    "image_credits",
    "overages",
    "period_anchor",
    "max_batch_size",
    "proxies",
    "storage_destinations",
    "credit_thresholds",
  ]);
  expect(plan).toEqual({
    image_credits: 7,
    overages: true,
    period_anchor: "2026-01-31T00:00:00.000Z",
    max_batch_size: 4,
    proxies: true,
    storage_destinations: true,
    credit_thresholds: [80, 100],
  });
  expect(JSON.parse((await latchkey(["org", "plan", "--org", orgId, "--json"], env)).stdout)).toEqual(plan);
  expect((await latchkey(["org", "plan", "--org", orgId], env)).stdout).toMatch(
    /image credits:\s+7 per billing period \(overages on\)/,
  );

  // 'default' returns a value to the default, it does not set 0 or 1970.
  const reset = await latchkey(
    ["org", "plan", "--org", orgId, "--image-credits", "default", "--period-anchor", "default", "--json"],
    env,
  );
  const defaults = JSON.parse(reset.stdout);
  expect(defaults.image_credits).toBe(50);
  expect(Date.now() - Date.parse(defaults.period_anchor)).toBeLessThan(10 * 60_000);
});

test("org plan refuses bad values and unknown organizations with one line and changes nothing", async () => {
  const env = databaseEnv();
  const { orgId } = await createOrg(env);
  const before = (await latchkey(["org", "plan", "--org", orgId, "--json"], env)).stdout;
  const attempts = [
    ["--overages", "maybe"],
    ["--image-credits", "-1"],
    ["--image-credits", "1.5"],
    ["--image-credits", "1000000001"],
    ["--max-batch-size", "lots"],
    ["--period-anchor", "2026-02-31T00:00:00Z"],
    ["--period-anchor", "2026-01-31"],
    ["--period-anchor", "2026-01-31T00:00:00"],
    ["--period-anchor", "next monday"],
  ];
  for (const flags of attempts) {
    // A valid change beside the bad one must not be applied either.
    const result = await latchkeyStatus(
      ["org", "plan", "--org", orgId, "--image-credits", "9", ...flags],
      env,
    );
    expect(result.code, flags.join(" ")).not.toBe(0);
    expect(result.stderr.trim().split("\n"), flags.join(" ")).toHaveLength(1);
    expect(result.stderr, flags.join(" ")).toContain(flags[0]);
    expect(result.stdout).toBe("");
  }
  expect((await latchkey(["org", "plan", "--org", orgId, "--json"], env)).stdout).toBe(before);

  const unknown = await latchkeyStatus(["org", "plan", "--org", "org_missing", "--image-credits", "5"], env);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toMatch(/^latchkey: No organization org_missing\. \(database: SQLite \S+\)\n$/);
});

test("a plan changed with org plan applies to the running server's next authorize", async () => {
  const env = databaseEnv();
  const { orgId, authorization } = await createOrg(env);
  const { token } = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "images", "--json"], env)).stdout,
  );
  const server = await startServer(env, await freePort());
  const first = (await (await authorize(server.baseUrl, token, authorization, 1)).json()) as {
    allowed: boolean;
  };
  expect(first.allowed).toBe(true);

  await latchkey(["org", "plan", "--org", orgId, "--image-credits", "1"], env);
  const spent = (await (await authorize(server.baseUrl, token, authorization, 1)).json()) as {
    headers: Record<string, string>;
  };
  expect(spent).toMatchObject({ allowed: false, status: 429, error: { code: "plan_limit_exceeded" } });
  expect(spent.headers).toMatchObject({ "x-renders-allowed": "1", "x-renders-used": "1" });
});

test("org create and org plan work remotely with --url and LATCHKEY_SERVICE_TOKEN, with the same output", async () => {
  const env = databaseEnv();
  const local = JSON.parse((await latchkey(["org", "create", "--name", "local", "--json"], env)).stdout);
  const { token } = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "ops", "--scope", "provision", "--json"], env))
      .stdout,
  );
  const server = await startServer(env, await freePort());
  // Only the server's address and the token: no database beside the command.
  const remoteEnv = {
    LATCHKEY_SERVICE_TOKEN: token,
    LATCHKEY_DATABASE_URL: "sqlite:/nonexistent/latchkey.db",
  };
  const remote = JSON.parse(
    (await latchkey(["org", "create", "--name", "remote", "--url", server.baseUrl, "--json"], remoteEnv))
      .stdout,
  );
  expect(Object.keys(remote)).toEqual(Object.keys(local));
  expect(Object.keys(remote.organization)).toEqual(Object.keys(local.organization));
  expect(Object.keys(remote.key).sort()).toEqual(Object.keys(local.key).sort());
  expect(remote.key).toMatchObject({
    all_future_permissions: true,
    api_key: expect.stringMatching(/^lksk_/),
  });
  const authorization = `Basic ${Buffer.from(`${remote.key.api_id}:${remote.key.api_key}`).toString("base64")}`;
  const listed = await fetch(`${server.baseUrl}/v1/api-keys`, { headers: { authorization } });
  expect(listed.status).toBe(200);

  const args = ["org", "plan", "--org", remote.organization.id, "--url", server.baseUrl];
  const changed = JSON.parse(
    (await latchkey([...args, "--image-credits", "900", "--json"], remoteEnv)).stdout,
  );
  expect(changed).toMatchObject({ image_credits: 900, overages: false, max_batch_size: 0 });
  const again = JSON.parse((await latchkey([...args, "--overages", "on", "--json"], remoteEnv)).stdout);
  expect(again).toMatchObject({ image_credits: 900, overages: true });
  const beside = JSON.parse(
    (await latchkey(["org", "plan", "--org", remote.organization.id, "--json"], env)).stdout,
  );
  expect(beside).toEqual(again);
  const text = (await latchkey(args, remoteEnv)).stdout;
  expect(text).toContain(`Plan of ${remote.organization.id}:`);
  expect(text).toMatch(/image credits:\s+900 per billing period \(overages on\)/);

  const noToken = await latchkeyStatus(["org", "create", "--name", "x", "--url", server.baseUrl], {});
  expect(noToken.code).not.toBe(0);
  expect(noToken.stderr).toContain("LATCHKEY_SERVICE_TOKEN");
  const unknown = await latchkeyStatus(
    ["org", "plan", "--org", "org_unknown", "--url", server.baseUrl],
    remoteEnv,
  );
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain("No organization org_unknown");
});

test("service-token create, list and revoke work remotely with --url, with the same output", async () => {
  const env = databaseEnv();
  const { token } = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "ops", "--scope", "provision", "--json"], env))
      .stdout,
  );
  const server = await startServer(env, await freePort());
  const remoteEnv = { LATCHKEY_SERVICE_TOKEN: token };
  const url = ["--url", server.baseUrl];
  const created = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "images", ...url, "--json"], remoteEnv)).stdout,
  );
  expect(Object.keys(created)).toEqual(["id", "name", "token"]);
  const listedRemotely = (await latchkey(["service-token", "list", ...url], remoteEnv)).stdout;
  const listedBeside = (await latchkey(["service-token", "list"], env)).stdout;
  expect(listedRemotely).toBe(listedBeside);
  expect(listedRemotely).toMatch(
    new RegExp(`${created.id}\\s+images\\s+created \\S+\\s+active\\s+scopes authorize\\n`),
  );
  const json = JSON.parse((await latchkey(["service-token", "list", ...url, "--json"], remoteEnv)).stdout);
  expect(json).toEqual(JSON.parse((await latchkey(["service-token", "list", "--json"], env)).stdout));
  expect(JSON.stringify(json)).not.toContain("lkst_");
  const revoked = await latchkey(["service-token", "revoke", created.id, ...url], remoteEnv);
  expect(revoked.stdout).toContain(created.id);
  const refused = await fetch(`${server.baseUrl}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-latchkey-service-token": created.token },
    body: JSON.stringify({ authorization: null, permission: "images:create" }),
  });
  expect(refused.status).toBe(401);
  // The audit trail names the token that acted.
  const audit = JSON.parse((await latchkey(["audit", "--deployment", "--json"], env)).stdout) as {
    actor: string;
  }[];
  expect(audit.map((entry) => entry.actor)).toContain(`service_token:${json[0].id}`);
});

test("org limits works remotely with --url, with the same output", async () => {
  const env = databaseEnv();
  const { orgId } = await createOrg(env);
  const { token } = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "ops", "--scope", "provision", "--json"], env))
      .stdout,
  );
  const server = await startServer(env, await freePort());
  const remoteEnv = { LATCHKEY_SERVICE_TOKEN: token };
  const url = ["--url", server.baseUrl];
  const args = ["org", "limits", "--org", orgId];
  const changed = (await latchkey([...args, "--group", "api-key:write", "--quota", "200", ...url], remoteEnv))
    .stdout;
  expect(changed).toBe((await latchkey(args, env)).stdout);
  expect(changed).toMatch(/api-key:write\s+200\/60 per organization \(override\)\n/);
  const json = JSON.parse((await latchkey([...args, ...url, "--json"], remoteEnv)).stdout);
  expect(json).toEqual(JSON.parse((await latchkey([...args, "--json"], env)).stdout));
  expect(json).toMatchObject({ organization: orgId, max_keys: 100, window_seconds: 60 });
  await latchkey([...args, "--group", "api-key:write", "--quota", "default", ...url], remoteEnv);
  expect(JSON.parse((await latchkey([...args, "--json"], env)).stdout).quotas["api-key:write"]).toBe(20);
  const maxKeys = await latchkeyStatus([...args, "--max-keys", "5", ...url], remoteEnv);
  expect(maxKeys.code).not.toBe(0);
  expect(maxKeys.stderr).toContain("--max-keys");
});
