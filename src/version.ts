import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

interface PackageJson {
  name: string;
  version: string;
  license: string;
}

let found: PackageJson | undefined;

/**
 * latchkey's own package.json, found by walking up from this module: the compiled modules sit one
 * folder below it and the bundled executables' chunks two (ARCHITECTURE.md, "Build"), and the tests
 * run this file from src/.
 */
export function packageJson(): PackageJson {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const path = join(dir, "package.json");
    if (existsSync(path)) {
      const parsed = JSON.parse(readFileSync(path, "utf8")) as PackageJson;
      if (parsed.name === "latchkey") return (found = parsed);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`latchkey's package.json is not in any folder above ${dir}`);
    dir = parent;
  }
}

/** The version of the installed package. */
export function packageVersion(): string {
  return packageJson().version;
}
