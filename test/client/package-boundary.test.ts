import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const clientDir = join(root, "src", "client");

/** Every module specifier a source file imports or re-exports. */
function specifiersOf(source: string): string[] {
  const found = source.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g,
  );
  return [...found].map((match) => match[1] ?? match[2] ?? "");
}

test("the client imports nothing but Node built-ins and its own modules", async () => {
  const files = (await readdir(clientDir)).filter((name) => name.endsWith(".ts"));
  expect(files.length).toBeGreaterThan(3);
  const offending: string[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(await readFile(join(clientDir, file), "utf8"))) {
      const ownModule = specifier.startsWith("./") && !specifier.slice(2).includes("/");
      if (!ownModule && !specifier.startsWith("node:")) offending.push(`${file}: ${specifier}`);
    }
  }
  expect(offending).toEqual([]);
});

test('other programs can `import { LatchkeyClient } from "latchkey/client"` from the built package', async () => {
  const script = [
    'const client = await import("latchkey/client");',
    "console.log(JSON.stringify(Object.keys(client).sort()));",
  ].join("\n");
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    timeout: 10_000,
  });
  expect(JSON.parse(stdout)).toEqual(
    expect.arrayContaining(["LatchkeyClient", "LatchkeyError", "KeyRotationError", "configurationOf"]),
  );
});
