import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { newSecret, newServiceToken } from "../../src/domain/credentials.js";
import { runLatchkey } from "../helpers/cli-runner.js";
import { tempDir } from "../helpers/processes.js";
import { runCli } from "./run-cli.js";

/** The bin with `input` on its standard input. */
async function scanStdin(input: string): Promise<{ code: number; stdout: string }> {
  const { code, stdout } = await runLatchkey(["keys", "scan", "-"], { env: process.env, stdin: input });
  return { code, stdout };
}

test("keys scan finds secrets with a valid checksum, by line and column, shortened, and exits 6", async () => {
  const leaked = newSecret();
  const other = newSecret();
  // One character changed: the checksum no longer matches, a typo or a placeholder, not a secret.
  const typo = `${leaked.slice(0, 10)}${leaked[10] === "a" ? "b" : "a"}${leaked.slice(11)}`;
  const text = [
    "# config",
    `LATCHKEY_API_KEY=${leaked}`,
    `curl -u lkid_x:${typo} https://example.test`,
    `  "api_key": "${other}", "again": "${leaked}"`,
    `glued: x${other}`,
    `service token ${newServiceToken()}`,
  ].join("\n");
  const file = join(tempDir(), "config.txt");
  writeFileSync(file, text);

  const result = await runCli(["keys", "scan", file], {});
  expect(result.code).toBe(6);
  expect(result.stdout).toBe(
    `${file}:2:18: ${leaked.slice(0, 9)}...${leaked.slice(-4)}\n` +
      `${file}:4:15: ${other.slice(0, 9)}...${other.slice(-4)}\n` +
      `${file}:4:${15 + other.length + 13}: ${leaked.slice(0, 9)}...${leaked.slice(-4)}\n`,
  );
  expect(result.stdout).not.toContain(leaked);
  expect(result.stderr).toContain("3 latchkey secrets found");

  const json = await runCli(["keys", "scan", file, "--json", "--show-secrets"], {});
  expect(JSON.parse(json.stdout)).toEqual([
    { line: 2, column: 18, secret: leaked },
    { line: 4, column: 15, secret: other },
    { line: 4, column: 15 + other.length + 13, secret: leaked },
  ]);
});

test("keys scan reads standard input, exits 0 when there is nothing, and 2 for a missing file", async () => {
  expect(await scanStdin(`nothing here but lksk_short and ${"lksk_".padEnd(43, "A")}\n`)).toEqual({
    code: 0,
    stdout: "",
  });
  const found = await scanStdin(`token=${newSecret()}\n`);
  expect(found.code).toBe(6);
  expect(found.stdout).toMatch(/^\(stdin\):1:7: lksk_/);
  const missing = await runCli(["keys", "scan", join(tempDir(), "absent.txt")], {});
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("no such file");
});
