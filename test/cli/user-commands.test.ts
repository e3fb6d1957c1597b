import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { bootstrapFirstOrganization } from "../../src/bootstrap.js";
import { verifyPassword } from "../../src/domain/passwords.js";
import { openStores } from "../../src/store/open-database.js";
import { buildTestApp } from "../helpers/build-test-app.js";
import { environmentWithoutLatchkey, runLatchkey } from "../helpers/cli-runner.js";

/** Runs the built `latchkey` with `stdin` piped in, as `printf ... | latchkey ...` would. */
function latchkey(args: string[], env: Record<string, string>, stdin = "") {
  return runLatchkey(args, { env: { ...environmentWithoutLatchkey(), ...env }, stdin });
}

async function database() {
  const folder = mkdtempSync(join(tmpdir(), "latchkey-users-"));
  const env = {
    LATCHKEY_DATABASE_URL: `sqlite:${join(folder, "latchkey.db")}`,
    LATCHKEY_DATABASE_CREATE: "on",
    LATCHKEY_PASSWORD_COST: "insecure-test",
  };
  const org = await latchkey(["org", "create", "--name", "acme", "--json"], env);
  expect(org.code).toBe(0);
  return { env, orgId: (JSON.parse(org.stdout) as { organization: { id: string } }).organization.id };
}

const PASSWORD = "correct horse battery staple";

test("user create reads the password from standard input, stores only its scrypt hash and prints no secret", async () => {
  const { env, orgId } = await database();
  const created = await latchkey(
    ["user", "create", "--email", "Ada@example.com", "--org", orgId, "--role", "admin", "--json"],
    env,
    `${PASSWORD}\n`,
  );
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({
    email: "Ada@example.com",
    org_id: orgId,
    role: "admin",
    created: true,
  });
  expect(created.stdout + created.stderr).not.toContain(PASSWORD);

  const stores = await openStores(env.LATCHKEY_DATABASE_URL);
  const user = await stores.console.findUserByEmail("ada@EXAMPLE.com");
  await stores.close();
  expect(user?.passwordHash).toMatch(/^scrypt\$/);
  expect(user?.passwordHash).not.toContain(PASSWORD);
  expect(await verifyPassword(PASSWORD, user?.passwordHash ?? "")).toBe(true);
  expect(await verifyPassword("wrong password!", user?.passwordHash ?? "")).toBe(false);

  const listed = await latchkey(["user", "list"], env);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/Ada@example\.com\s+org_\S+ \(acme\)\s+admin\s+off/);
});

test("a password is never an argument, a short one is refused, and nothing is created", async () => {
  const { env, orgId } = await database();
  const asArgument = await latchkey(
    [
      "user",
      "create",
      "--email",
      "a@example.com",
      "--org",
      orgId,
      "--role",
      "member",
      "--password",
      PASSWORD,
    ],
    env,
  );
  expect(asArgument.code).toBe(2);
  const short = await latchkey(
    ["user", "create", "--email", "a@example.com", "--org", orgId, "--role", "member"],
    env,
    "short\n",
  );
  expect(short.code).toBe(2);
  expect(short.stderr).toContain("at least 12 characters");
  const empty = await latchkey(
    ["user", "create", "--email", "a@example.com", "--org", orgId, "--role", "member"],
    env,
    "",
  );
  expect(empty.code).toBe(2);
  const badRole = await latchkey(
    ["user", "create", "--email", "a@example.com", "--org", orgId, "--role", "root"],
    env,
    `${PASSWORD}\n`,
  );
  expect(badRole.code).toBe(2);
  const unknownOrg = await latchkey(
    ["user", "create", "--email", "a@example.com", "--org", "org_nope", "--role", "member"],
    env,
    `${PASSWORD}\n`,
  );
  expect(unknownOrg.code).toBe(1);
  expect((await latchkey(["user", "list", "--json"], env)).stdout.trim()).toBe("[]");
});

test("user password sets a forgotten password from standard input and signs out every session; an unknown email or a short password changes nothing", async () => {
  const { env, orgId } = await database();
  const created = await latchkey(
    ["user", "create", "--email", "ada@example.com", "--org", orgId, "--role", "owner"],
    env,
    `${PASSWORD}\n`,
  );
  expect(created.code).toBe(0);
  const stores = await openStores(env.LATCHKEY_DATABASE_URL);
  const before = await stores.console.findUserByEmail("ada@example.com");
  const now = Date.now();
  await stores.console.insertSession({
    tokenHash: "a browser",
    userId: before?.id ?? "",
    createdAt: now,
    lastSeenAt: now,
    revokedAt: null,
  });
  await stores.close();

  const NEW_PASSWORD = "a much longer new passphrase";
  const unknown = await latchkey(
    ["user", "password", "--email", "bob@example.com"],
    env,
    `${NEW_PASSWORD}\n`,
  );
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No console user with email "bob@example.com"');
  const short = await latchkey(["user", "password", "--email", "ada@example.com"], env, "short\n");
  expect(short.code).toBe(2);
  expect(short.stderr).toContain("at least 12 characters");

  const reset = await latchkey(["user", "password", "--email", "ADA@example.com"], env, `${NEW_PASSWORD}\n`);
  expect(reset.code).toBe(0);
  expect(reset.stdout).toContain("signed out their sessions");
  expect(reset.stdout + reset.stderr).not.toContain(NEW_PASSWORD);

  const after = await openStores(env.LATCHKEY_DATABASE_URL);
  const user = await after.console.findUserByEmail("ada@example.com");
  const session = await after.console.findSession("a browser");
  await after.close();
  expect(await verifyPassword(NEW_PASSWORD, user?.passwordHash ?? "")).toBe(true);
  expect(await verifyPassword(PASSWORD, user?.passwordHash ?? "")).toBe(false);
  expect(session?.revokedAt).not.toBeNull();
});

test("user two-factor-off turns a user's two-factor sign-in off, audited as the operator; an unknown email is exit 1", async () => {
  const { env, orgId } = await database();
  const created = await latchkey(
    ["user", "create", "--email", "ada@example.com", "--org", orgId, "--role", "owner", "--json"],
    env,
    `${PASSWORD}\n`,
  );
  const userId = (JSON.parse(created.stdout) as { id: string }).id;
  const stores = await openStores(env.LATCHKEY_DATABASE_URL);
  const audit = (id: string) => ({
    id,
    at: Date.now(),
    actor: `user:${userId}`,
    orgId: null,
    action: "user.two_factor.update" as const,
    targetId: userId,
    before: null,
    after: null,
  });
  await stores.console.setTotp(userId, { secret: "A".repeat(32), step: 1 }, audit(`aud_${"0".repeat(22)}`));
  await stores.close();

  const listedOn = JSON.parse((await latchkey(["user", "list", "--json"], env)).stdout) as {
    two_factor: boolean;
  }[];
  expect(listedOn.map((row) => row.two_factor)).toEqual([true]);
  const unknown = await latchkey(["user", "two-factor-off", "--email", "bob@example.com"], env);
  expect(unknown.code).toBe(1);
  const off = await latchkey(["user", "two-factor-off", "--email", "Ada@example.com"], env);
  expect(off.code).toBe(0);
  expect(off.stdout).toContain("Two-factor sign-in is off for Ada@example.com.");

  const after = await openStores(env.LATCHKEY_DATABASE_URL);
  const user = await after.console.findUserById(userId);
  const trail = await after.audit.listAuditEntries({ orgId: null, limit: 5 });
  await after.close();
  expect(user?.totpSecret).toBeNull();
  expect((await latchkey(["user", "list"], env)).stdout).toMatch(
    /ada@example\.com\s+org_\S+ \(acme\)\s+owner\s+off/,
  );
  expect(trail[0]).toMatchObject({
    action: "user.two_factor.update",
    actor: "operator",
    after: { two_factor: false },
  });
});

test("user remove takes a membership or the whole user away, but never an organization's last owner", async () => {
  const { env, orgId } = await database();
  for (const [email, role] of [
    ["owner@example.com", "owner"],
    ["member@example.com", "member"],
  ]) {
    const made = await latchkey(
      ["user", "create", "--email", email!, "--org", orgId, "--role", role!],
      env,
      `${PASSWORD}\n`,
    );
    expect(made.code).toBe(0);
  }
  const lastOwner = await latchkey(["user", "remove", "--email", "owner@example.com"], env);
  expect(lastOwner.code).toBe(2);
  expect(lastOwner.stderr).toContain("last owner");

  expect(
    (await latchkey(["user", "remove", "--email", "member@example.com", "--org", orgId], env)).code,
  ).toBe(0);
  expect((await latchkey(["user", "remove", "--email", "member@example.com"], env)).code).toBe(0);
  const again = await latchkey(["user", "remove", "--email", "member@example.com"], env);
  expect(again.code).toBe(1);
  const listed = JSON.parse((await latchkey(["user", "list", "--json"], env)).stdout) as { email: string }[];
  expect(listed.map((row) => row.email)).toEqual(["owner@example.com"]);

  const audit = await latchkey(["audit", "--org", orgId, "--json"], env);
  expect(audit.stdout).toContain("user.create");
  expect(audit.stdout).toContain("membership.remove");
});

test("the first start with LATCHKEY_OWNER_EMAIL makes an owner whose password is only in the 0600 file", async () => {
  const folder = mkdtempSync(join(tmpdir(), "latchkey-owner-"));
  const file = join(folder, "first.env");
  const { services, logs } = await buildTestApp();
  let printed = "";
  const config = {
    bootstrap: "file" as const,
    bootstrapFile: file,
    databaseUrl: "sqlite::memory:",
    ownerEmail: "boss@example.com",
  };
  expect(await bootstrapFirstOrganization(services, config, (text) => (printed += text))).toBe(true);
  const text = readFileSync(file, "utf8");
  const password = /LATCHKEY_OWNER_PASSWORD=(\S+)/.exec(text)?.[1] ?? "";
  expect(password.length).toBeGreaterThanOrEqual(24);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(printed).toContain("boss@example.com");
  expect(printed + logs.join("\n")).not.toContain(password);
  const [membership] = await services.consoleUsers.list();
  expect(membership).toMatchObject({ email: "boss@example.com", role: "owner", orgName: "default" });
  const user = await services.consoleStore.findUserByEmail("boss@example.com");
  expect(await verifyPassword(password, user?.passwordHash ?? "")).toBe(true);
});
