import { spawnSync } from "node:child_process";
import { describe, test } from "vitest";
import { postgresBinDir } from "./own-postgres.js";

/**
 * The external services some suites need, and where each comes from: the URL of the machine's
 * PostgreSQL and Redis (DESIGN.md section 9), and the `redis-server` program for suites that must stop
 * and restart a Redis of their own (never the shared one), the `caddy` program for the gateway suite,
 * and the `prometheus` program for the suite that scrapes a real server with a Prometheus of its own
 * (never the machine's Debian service).
 */
export interface TestServices {
  /** LATCHKEY_TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test. */
  postgres: string;
  /** LATCHKEY_TEST_REDIS_URL, e.g. redis://127.0.0.1:6379. */
  redis: string;
  /** Path of the redis-server program (LATCHKEY_TEST_REDIS_SERVER, else found on PATH). */
  redisServer: string;
  /** Path of the caddy program, for the gateway suite (LATCHKEY_TEST_CADDY, else found on PATH). */
  caddy: string;
  /** Path of the prometheus program (LATCHKEY_TEST_PROMETHEUS, else found on PATH; Debian's package). */
  prometheus: string;
  /**
   * Folder of PostgreSQL's server programs (initdb, pg_ctl), for suites that run, stop and restart a
   * cluster of their own (LATCHKEY_TEST_POSTGRES_BIN, else Debian's /usr/lib/postgresql/N/bin).
   */
  postgresServer: string;
}

export type ServiceName = keyof TestServices;

/** The programs a suite runs itself: the variable that names one, the default, how to probe it. */
const PROGRAMS = {
  redisServer: {
    variable: "LATCHKEY_TEST_REDIS_SERVER",
    fallback: "redis-server",
    versionArgs: ["--version"],
  },
  caddy: { variable: "LATCHKEY_TEST_CADDY", fallback: "caddy", versionArgs: ["version"] },
  prometheus: { variable: "LATCHKEY_TEST_PROMETHEUS", fallback: "prometheus", versionArgs: ["--version"] },
} as const;

function findService(name: ServiceName): { value: string } | { missing: string } {
  switch (name) {
    case "postgres":
    case "redis": {
      const variable = name === "postgres" ? "LATCHKEY_TEST_POSTGRES_URL" : "LATCHKEY_TEST_REDIS_URL";
      const value = process.env[variable];
      return value ? { value } : { missing: `${variable} is not set` };
    }
    case "postgresServer": {
      const dir = postgresBinDir();
      return dir
        ? { value: dir }
        : { missing: "no initdb in /usr/lib/postgresql/*/bin (apt-get install postgresql)" };
    }
    case "redisServer":
    case "caddy":
    case "prometheus": {
      const { variable, fallback, versionArgs } = PROGRAMS[name];
      const program = process.env[variable] || fallback;
      const probe = spawnSync(program, versionArgs, { encoding: "utf8" });
      return probe.status === 0
        ? { value: program }
        : { missing: `${program} cannot be run (apt-get install ${fallback})` };
    }
  }
}

/** Whether a missing service fails the run (CI, `.ci/run`) instead of skipping the suite. */
export const servicesRequired = process.env.LATCHKEY_REQUIRE_SERVICES === "1";

/**
 * Declares a suite that runs only when every named service is available. Otherwise the suite is
 * skipped with the reason printed, or, under LATCHKEY_REQUIRE_SERVICES=1, replaced by a failing test,
 * so that CI can never pass by silently skipping the PostgreSQL and Redis suites.
 */
export function describeWithServices<const N extends ServiceName>(
  needs: readonly N[],
  title: string,
  body: (services: Pick<TestServices, N>) => void,
): void {
  const found: Partial<TestServices> = {};
  const missing: string[] = [];
  for (const name of needs) {
    const result = findService(name);
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
  console.warn(`skipping "${title}": ${reason} (set it, or run .ci/run, to include this suite)`);
  describe.skip(`${title} (skipped: ${reason})`, () => {
    test("needs services", () => {});
  });
}
