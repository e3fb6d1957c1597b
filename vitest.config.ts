import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Finds PostgreSQL, Redis and the programs some suites start, once per run (test/README.md).
    globalSetup: ["test/helpers/find-services.ts"],
    // Files run in parallel: each one isolates its state (its own SQLite, PostgreSQL schema, Redis prefix
    // or redis-server), so they never share rows or keys.
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
