// The README's and docs/several-nodes.md's recipes in full: test/docs/recipes.test.ts with the install
// steps run as written in the fresh copy (`npm ci`, which compiles better-sqlite3, and `npm run build`),
// where CI gives the copy this checkout's installed and built files instead. Reports how long it took.
//
//   LATCHKEY_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node bench/recipes.mjs
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";

const started = Date.now();
const vitest = spawnSync("npx", ["vitest", "run", "test/docs/recipes.test.ts"], {
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, LATCHKEY_TEST_RECIPES_INSTALL: "as-written" },
});
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `recipes with npm ci as written: ${vitest.status === 0 ? "passed" : "FAILED"} in ${seconds} s ` +
    `(1-minute load ${loadavg()[0]?.toFixed(1)})`,
);
process.exit(vitest.status ?? 1);
