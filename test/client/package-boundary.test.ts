import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const clientDir = join(root, "packages", "client", "src");

/** Every module specifier a source file imports or re-exports. */
function specifiersOf(source: string): string[] {
  const found = source.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g,
  );
  return [...found].map((match) => match[1] ?? match[2] ?? "");
}

/** Whether a relative specifier of `file` names a module inside the client's source (the guard included). */
function staysInClient(file: string, specifier: string): boolean {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return false;
  const target = relative(clientDir, resolve(dirname(join(clientDir, file)), specifier));
  return !target.startsWith("..");
}

test("the client and the guard import nothing but Node built-ins and their own modules", async () => {
  const files = (await readdir(clientDir, { recursive: true })).filter((name) => name.endsWith(".ts"));
  expect(files).toEqual(expect.arrayContaining(["client.ts", join("guard", "fastify.ts")]));
  const offending: string[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(await readFile(join(clientDir, file), "utf8"))) {
      if (!staysInClient(file, specifier) && !specifier.startsWith("node:")) {
        offending.push(`${file}: ${specifier}`);
      }
    }
  }
  expect(offending).toEqual([]);
});

test("the client package declares no dependency at all", async () => {
  const manifest = JSON.parse(await readFile(join(root, "packages", "client", "package.json"), "utf8"));
  expect(manifest.name).toBe("@latchkey/client");
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies", "bundleDependencies"]) {
    expect(manifest[field], field).toBeUndefined();
  }
});

// The server's own entry points, kept for programs written before the client was a package of its own.
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

test('a platform service can `import { latchkeyGuard } from "latchkey/guard"` from the built package', async () => {
  const script = [
    'const guard = await import("latchkey/guard");',
    "console.log(JSON.stringify({ exports: Object.keys(guard).sort() }));",
  ].join("\n");
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    timeout: 10_000,
  });
  expect(JSON.parse(stdout).exports).toEqual(
    expect.arrayContaining(["latchkeyGuard", "latchkeyNodeGuard", "decisionOf"]),
  );
});
