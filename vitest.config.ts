import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** A file of the client package's source, so tests run the client as it is now, not its last build. */
const clientSource = (path: string) => fileURLToPath(new URL(`packages/client/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@latchkey\/client$/, replacement: clientSource("index.ts") },
      { find: /^@latchkey\/client\/guard$/, replacement: clientSource("guard/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Files run in parallel: each one isolates its state (its own SQLite, PostgreSQL schema, Redis prefix
    // or redis-server), so they never share rows or keys.
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
