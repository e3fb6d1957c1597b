import { readFileSync } from "node:fs";

/** The version of the installed package: `dist/version.js` sits one folder below its package.json. */
export function packageVersion(): string {
  const path = new URL("../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}
