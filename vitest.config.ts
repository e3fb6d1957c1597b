import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Multi-process and service-backed suites share PostgreSQL and Redis: run files one at a time there.
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
