import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { startServer, tempDir } from "../helpers/processes.js";

/** The NAME=value lines of a credentials file. */
function readEnvFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split("=", 2) as [string, string]),
  );
}

async function signIn(baseUrl: string, email: string, password: string): Promise<number> {
  const response = await fetch(`${baseUrl}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: baseUrl },
    body: new URLSearchParams({ email, password, next: "/console" }).toString(),
  });
  return response.status;
}

test("LATCHKEY_OWNER_EMAIL on a later start makes the first console owner, once, and says why not otherwise", async () => {
  const dir = tempDir();
  // The first start's secrets go to their file, as by default (not printed).
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "data", "latchkey.db")}`, LATCHKEY_BOOTSTRAP: "" };
  const first = await startServer(env, await freePort());
  first.child.kill("SIGTERM");
  expect(await first.exited).toBe(0);

  // Started again as the README's console paragraph says: the owner is made, the password in a 0600 file.
  const second = await startServer({ ...env, LATCHKEY_OWNER_EMAIL: "ada@example.com" }, await freePort());
  const file = join(dir, "data", "console-owner-credentials.env");
  await vi.waitFor(() => expect(second.stderr()).toContain(file));
  expect(second.stderr()).toContain("created the console owner ada@example.com of 'default'");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const credentials = readEnvFile(file);
  expect(credentials.LATCHKEY_OWNER_EMAIL).toBe("ada@example.com");
  const password = credentials.LATCHKEY_OWNER_PASSWORD ?? "";
  expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
  expect(second.stderr() + second.stdout()).not.toContain(password);
  expect(await signIn(second.baseUrl, "ada@example.com", password)).toBe(303);
  second.child.kill("SIGTERM");
  expect(await second.exited).toBe(0);

  // The same email again: nothing to do, nothing said. Another one: a warning naming the variable.
  const third = await startServer({ ...env, LATCHKEY_OWNER_EMAIL: "ada@example.com" }, await freePort());
  expect(third.stderr()).not.toContain("console owner");
  expect(third.stdout()).not.toContain("LATCHKEY_OWNER_EMAIL");
  third.child.kill("SIGTERM");
  expect(await third.exited).toBe(0);
  const fourth = await startServer({ ...env, LATCHKEY_OWNER_EMAIL: "bob@example.com" }, await freePort());
  await vi.waitFor(() => expect(fourth.stdout()).toContain("LATCHKEY_OWNER_EMAIL=bob@example.com"));
  const warning = JSON.parse(
    fourth
      .stdout()
      .split("\n")
      .find((line) => line.includes("LATCHKEY_OWNER_EMAIL=bob@example.com")) ?? "{}",
  ) as { level: number; msg: string };
  expect(warning.level).toBe(40);
  expect(warning.msg).toContain("the deployment has console users already");
  expect(warning.msg).toContain("latchkey user create --email bob@example.com --org org_");
  expect(await signIn(fourth.baseUrl, "bob@example.com", password)).toBe(401);
});
