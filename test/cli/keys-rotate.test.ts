import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { cliEnv, runCli, runCliProcess } from "./run-cli.js";

async function scratchDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "latchkey-rotate-"));
  onTestFinished(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

test("rotate --out writes the new credentials to a 0600 file, shows each step and disables the old key", async () => {
  const server = await startRealServer();
  const ownerKey = await server.owner();
  const owner = server.clientFor(ownerKey);
  const old = await owner.keys.create({
    name: "worker",
    description: "queue",
    permissions: ["api_keys:read"],
  });
  const out = join(await scratchDirectory(), "worker-credentials.json");

  const result = await runCli(["keys", "rotate", old.id, "--out", out], cliEnv(server.url, ownerKey));

  expect(result.code).toBe(0);
  expect(result.stdout).toBe(""); // the secret went to the file only
  expect(result.stderr).not.toContain("lksk_");
  const steps = result.stderr.split("\n").filter((line) => /^\[\d\/5\]/.test(line));
  expect(steps.map((line) => line.slice(0, 5))).toEqual(["[1/5]", "[2/5]", "[3/5]", "[4/5]", "[5/5]"]);
  expect(steps[2]).toContain(`stored the new credentials in ${out} (mode 0600)`);

  expect((await stat(out)).mode & 0o777).toBe(0o600);
  const stored = JSON.parse(await readFile(out, "utf8"));
  expect(stored).toMatchObject({ name: "worker", description: "queue", permissions: ["api_keys:read"] });
  expect(stored.id).not.toBe(old.id);
  expect((await owner.keys.get(old.id)).enabled).toBe(false);
  // The stored credentials are the working ones.
  const asNew = server.clientFor({ apiId: stored.api_id, secret: stored.api_key });
  expect((await asNew.keys.get(stored.id)).enabled).toBe(true);
});

test("a failing --verify-command stops the rotation: exit 4, old key enabled, new key named for cleanup", async () => {
  const server = await startRealServer();
  const ownerKey = await server.owner();
  const owner = server.clientFor(ownerKey);
  const old = await owner.keys.create({ name: "api", permissions: ["images:read"] });
  const directory = await scratchDirectory();
  const seen = join(directory, "seen-by-verify");

  // The verify command writes to the CLI's own standard error: a process of its own, not a thread.
  const result = await runCliProcess(
    [
      "keys",
      "rotate",
      old.id,
      "--json",
      "--verify-command",
      `printf '%s %s' "$LATCHKEY_NEW_KEY_ID" "$LATCHKEY_NEW_API_ID" > '${seen}'; echo checking the app; exit 7`,
    ],
    cliEnv(server.url, ownerKey),
  );

  expect(result.code).toBe(4);
  // Without --out the new credentials were printed at the store step, before the failure.
  const printed = JSON.parse(result.stdout);
  expect(printed.api_key).toMatch(/^lksk_/);
  expect(await readFile(seen, "utf8")).toBe(`${printed.id} ${printed.api_id}`);
  expect(result.stderr).toContain("checking the app"); // the command's output goes to stderr
  const lastLine = result.stderr.trimEnd().split("\n").at(-1) ?? "";
  expect(lastLine).toMatch(
    /^latchkey: Rotation of key_\w+ failed at step "verify": The verify command exited with status 7\./,
  );
  expect(lastLine).toContain(`Clean up the new key ${printed.id}`);
  expect((await owner.keys.get(old.id)).enabled).toBe(true);
});

test("rotate refuses an --out file that exists before creating anything", async () => {
  const server = await startRealServer();
  const ownerKey = await server.owner();
  const owner = server.clientFor(ownerKey);
  const old = await owner.keys.create({ permissions: ["images:read"] });
  const out = join(await scratchDirectory(), "credentials.json");
  await writeFile(out, "the credentials in use\n");

  const result = await runCli(["keys", "rotate", old.id, "--out", out], cliEnv(server.url, ownerKey));

  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    `latchkey: --out ${out} already exists; latchkey never overwrites a credentials file.\n`,
  );
  expect(await readFile(out, "utf8")).toBe("the credentials in use\n");
  expect((await owner.keys.list()).data).toHaveLength(2); // the owner and the old key, nothing new
  expect((await owner.keys.get(old.id)).enabled).toBe(true);
});
