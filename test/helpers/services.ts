import { describe, inject, test } from "vitest";
import type { Found, FoundServices } from "./find-services.js";
import { assertOutsideQuickLoop } from "./quick-loop.js";

/**
 * The external services some suites need, and where each comes from: the URL of the machine's
 * PostgreSQL and Redis (found at their usual addresses, or named by LATCHKEY_TEST_POSTGRES_URL and
 * LATCHKEY_TEST_REDIS_URL), and the `redis-server` program for suites that must stop and restart a
 * Redis of their own (never the shared one), the `caddy` program for the gateway suite, and the
 * `prometheus` program for the suite that scrapes a real server with a Prometheus of its own (never the
 * machine's Debian service). `find-services.ts` looks for them once per run.
 */
export interface TestServices {
  /** e.g. postgres://postgres@127.0.0.1:5432/test (LATCHKEY_TEST_POSTGRES_URL, else found). */
  postgres: string;
  /** e.g. redis://127.0.0.1:6379 (LATCHKEY_TEST_REDIS_URL, else found). */
  redis: string;
  /** Path of the redis-server program (LATCHKEY_TEST_REDIS_SERVER, else found on PATH). */
  redisServer: string;
  /** Path of the redis-cli program, for suites that create a cluster (LATCHKEY_TEST_REDIS_CLI, else on PATH). */
  redisCli: string;
  /** Path of the caddy program, for the gateway suite (LATCHKEY_TEST_CADDY, else found on PATH). */
  caddy: string;
  /** Path of the prometheus program (LATCHKEY_TEST_PROMETHEUS, else found on PATH; Debian's package). */
  prometheus: string;
  /** Path of the chromium program for the console's browser suites (LATCHKEY_TEST_CHROMIUM, else on PATH). */
  chromium: string;
  /**
   * Folder of PostgreSQL's server programs (initdb, pg_ctl), for suites that run, stop and restart a
   * cluster of their own (LATCHKEY_TEST_POSTGRES_BIN, else Debian's /usr/lib/postgresql/N/bin).
   */
  postgresServer: string;
}

export type ServiceName = keyof TestServices;

/** Whether a missing service fails the run (CI, `.ci/run`) instead of skipping the suite. */
export const servicesRequired = process.env.LATCHKEY_REQUIRE_SERVICES === "1";

/** What the global setup found; a run without it (another config) finds nothing. */
function foundServices(): Partial<FoundServices> {
  return inject("testServices") ?? {};
}

/**
 * Declares a suite that runs only when every named service is available. Otherwise every test of the
 * suite is reported as skipped, the reason in the suite's name, or, under LATCHKEY_REQUIRE_SERVICES=1
 * (which the global setup already refuses), replaced by a failing test, so that CI can never pass by
 * silently skipping the PostgreSQL and Redis suites. `body` only declares tests and hooks: skipped, it
 * is called with empty strings that no hook or test ever reads.
 */
export function describeWithServices<const N extends ServiceName>(
  needs: readonly N[],
  title: string,
  body: (services: Pick<TestServices, N>) => void,
): void {
  assertOutsideQuickLoop(`"${title}" needs ${needs.join(", ")}, which`);
  const all = foundServices();
  const found: Partial<TestServices> = {};
  const missing: string[] = [];
  for (const name of needs) {
    const result: Found = all[name] ?? {
      missing: `${name} was not looked for (run through vitest.config.ts)`,
    };
    if ("value" in result) found[name] = result.value;
    else missing.push(result.missing);
  }
  if (missing.length === 0) {
    describe(title, () => body(found as Pick<TestServices, N>));
    return;
  }
  const reason = missing.join("; ");
  if (servicesRequired) {
    describe(title, () => {
      test("has the services it needs", () => {
        throw new Error(`LATCHKEY_REQUIRE_SERVICES=1 but ${reason}`);
      });
    });
    return;
  }
  const placeholders = Object.fromEntries(needs.map((name) => [name, ""])) as Pick<TestServices, N>;
  describe.skip(`${title} (skipped: ${reason})`, () => body(placeholders));
}
