import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/helpers/longest-first.js";
import { scaledMs } from "./test/helpers/start-deadline.js";

/** A file of the client package's source, so tests run the client as it is now, not its last build. */
const clientSource = (path: string) => fileURLToPath(new URL(`packages/client/src/${path}`, import.meta.url));

/**
 * The files that need more than the source: the build (`dist/` started as a process, or its CLI), a
 * service (PostgreSQL, Redis, Caddy, Prometheus, chromium) or a process of their own. Every other file
 * is the quick loop, `npm run test:unit`: in-process, on in-memory SQLite and the memory limiter. A
 * quick-loop file that asks for a service or starts the build fails and names this list
 * (test/helpers/quick-loop.ts).
 */
const INTEGRATION = [
  "test/cli/**",
  "test/deploy/**",
  "test/docs/**",
  "test/gateway/**",
  "test/multinode/**",
  "test/process/**",
  "test/**/*.browser.test.ts",
  "test/client/package-*.test.ts",
  "test/cache/redis-record-versions.test.ts",
  "test/http/idempotency.test.ts",
  "test/http/keep-alive-credentials.test.ts",
  "test/http/metrics-backends.test.ts",
  "test/http/record-cache-postgres.test.ts",
  "test/http/round-trips-postgres.test.ts",
  "test/http/resource-quota-postgres.test.ts",
  "test/http/text-rules.test.ts",
  "test/oauth/mcp-sdk-grants.test.ts",
  "test/ratelimit/limiter-contract.test.ts",
  "test/ratelimit/redis-*.test.ts",
  "test/redis/replica-ack.test.ts",
  "test/services/secret-handoffs.test.ts",
  "test/store/*.contract.test.ts",
  "test/store/credits.test.ts",
  "test/store/database-faults.test.ts",
  "test/store/plan-store.test.ts",
  "test/store/postgres-store.test.ts",
  "test/webhooks/**",
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@latchkey\/client$/, replacement: clientSource("index.ts") },
      { find: /^@latchkey\/client\/guard$/, replacement: clientSource("guard/index.ts") },
    ],
  },
  test: {
    // The default lines, and every few seconds how many files of the run are done (test/README.md).
    reporters: ["default", "./test/helpers/progress-reporter.ts"],
    // Files run in parallel: each one isolates its state (its own SQLite, PostgreSQL schema, Redis prefix
    // or redis-server), so they never share rows or keys.
    fileParallelism: true,
    // Most files wait on processes, sockets and databases rather than compute: three at a time even on
    // a 2-core machine (Vitest's default there is one). On this project's 2-core machine the whole
    // run took 5 min with three, 7 with two. Four, on a machine twice as slow, took 578 s against 622
    // and three tests ran out of time; again with the bundled executables, 495 s against 415 to 487
    // with three, and two password-hashing tests ran out of time: four is too many on 2 cores.
    maxWorkers: 3,
    // The files measured longest start first, in either project, so none is left running alone at the
    // end (test/helpers/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    // A worker keeps its loaded modules from one file to the next instead of importing src/ afresh for
    // each (that import was a third of the run). Files share no state through modules: every test
    // builds its own app, stores and registry.
    isolate: false,
    // 30 s on an idle machine, longer when the run starts on a busy one (test/helpers/start-deadline.ts).
    testTimeout: scaledMs(30_000),
    hookTimeout: scaledMs(30_000),
    // `npm test` runs both; `npm run test:unit` (vitest run --project unit) the quick loop alone.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: INTEGRATION,
          provide: { quickLoop: true },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: INTEGRATION.map((glob) => (glob.endsWith("**") ? `${glob}/*.test.ts` : glob)),
          // Finds PostgreSQL, Redis and the programs some suites start, once per run (test/README.md).
          globalSetup: ["test/helpers/find-services.ts"],
          provide: { quickLoop: false },
        },
      },
    ],
  },
});
