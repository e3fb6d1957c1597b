import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { userInfo } from "node:os";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { postgresBinDir } from "./own-postgres.js";

/**
 * Vitest's global setup (vitest.config.ts): finds, once per run, the external services some suites
 * need, and hands the result to every test file (`inject("testServices")`, read by `services.ts`).
 *
 * PostgreSQL and Redis come from LATCHKEY_TEST_POSTGRES_URL and LATCHKEY_TEST_REDIS_URL when set, and
 * are otherwise looked for at their usual addresses by a real `SELECT 1` and `PING`, so that a plain
 * `npm test` on a machine running both runs every suite. The programs some suites start themselves
 * (`redis-server`, `redis-cli`, `caddy`, `prometheus`) are found by running them with their version flag.
 * Under LATCHKEY_REQUIRE_SERVICES=1 a missing service fails the run here, before any test runs.
 */

/**
 * What the run found for one service: where it is, or why it cannot be used (`missing`, short: it
 * names every skipped test) and what each attempt answered (`detail`, printed once per run).
 */
export type Found = { value: string } | { missing: string; detail?: string };

/** The services, by name: the URLs of PostgreSQL and Redis, the paths of the programs. */
export interface FoundServices {
  postgres: Found;
  redis: Found;
  redisServer: Found;
  /** redis-cli, which creates and reshards the clusters suites start (`--cluster create`). */
  redisCli: Found;
  caddy: Found;
  prometheus: Found;
  /** Debian's chromium, driven by playwright-core in the console's browser suites. */
  chromium: Found;
  /** Folder of PostgreSQL's server programs (initdb, pg_ctl), for suites that run a cluster of their own. */
  postgresServer: Found;
}

declare module "vitest" {
  export interface ProvidedContext {
    testServices: FoundServices;
  }
}

/** A probe answers within this, or the service counts as missing: a local service answers at once. */
const PROBE_TIMEOUT_MS = 3000;

/** The programs a suite runs itself: the variable that names one, the default, how to probe it. */
const PROGRAMS = {
  redisServer: {
    variable: "LATCHKEY_TEST_REDIS_SERVER",
    fallback: "redis-server",
    versionArgs: ["--version"],
  },
  redisCli: { variable: "LATCHKEY_TEST_REDIS_CLI", fallback: "redis-cli", versionArgs: ["--version"] },
  caddy: { variable: "LATCHKEY_TEST_CADDY", fallback: "caddy", versionArgs: ["version"] },
  prometheus: { variable: "LATCHKEY_TEST_PROMETHEUS", fallback: "prometheus", versionArgs: ["--version"] },
  chromium: { variable: "LATCHKEY_TEST_CHROMIUM", fallback: "chromium", versionArgs: ["--version"] },
} as const;

/** Where a PostgreSQL is usually found: the `test` database as `postgres`, else as the current user. */
function postgresCandidates(): string[] {
  const user = userInfo().username;
  const candidates = ["postgres://postgres@127.0.0.1:5432/test", `postgres://${user}@127.0.0.1:5432/test`];
  // The current user's own database, as `psql` with no arguments would open it.
  candidates.push(`postgres://${user}@127.0.0.1:5432/${user}`);
  return [...new Set(candidates)];
}

/** Connects and runs `SELECT 1`: resolves with nothing on success, with the failure otherwise. */
async function probePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    return (error as Error).message || String(error);
  }
  try {
    await client.query("select 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Connects and sends `PING`: resolves with nothing on `+PONG`, with the failure otherwise. */
function probeRedis(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || "127.0.0.1", port: Number(port || 6379) });
    let reply = "";
    const finish = (failure: string | undefined) => {
      socket.destroy();
      resolve(failure);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => finish(`no answer within ${PROBE_TIMEOUT_MS} ms`));
    socket.once("error", (error) => finish(error.message));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes("\r\n"))
        finish(reply.startsWith("+PONG") ? undefined : `PING answered ${reply.trim()}`);
    });
  });
}

/**
 * The URL of a database service: the variable's value when set (used as given: a wrong value fails
 * the suites that need it, which is what someone who set it wants to know), else the first usual
 * address that answers.
 */
async function findDatabase(
  what: string,
  variable: string,
  candidates: string[],
  probe: (url: string) => Promise<string | undefined>,
): Promise<Found> {
  const value = process.env[variable];
  if (value) return { value };
  const failures: string[] = [];
  for (const url of candidates) {
    const failure = await probe(url);
    if (failure === undefined) return { value: url };
    failures.push(`${url}: ${failure}`);
  }
  return { missing: `no ${what} at ${candidates[0]}, set ${variable}`, detail: failures.join("; ") };
}

function findProgram(name: keyof typeof PROGRAMS): Found {
  const { variable, fallback, versionArgs } = PROGRAMS[name];
  const program = process.env[variable] || fallback;
  const probe = spawnSync(program, versionArgs, { encoding: "utf8", timeout: 10_000 });
  return probe.status === 0
    ? { value: program }
    : { missing: `no ${program} to run, apt-get install ${fallback} or set ${variable}` };
}

function findPostgresServer(): Found {
  const dir = postgresBinDir();
  return dir
    ? { value: dir }
    : {
        missing:
          "no initdb in /usr/lib/postgresql/*/bin, apt-get install postgresql or set LATCHKEY_TEST_POSTGRES_BIN",
      };
}

export async function findServices(): Promise<FoundServices> {
  const [postgres, redis] = await Promise.all([
    findDatabase("PostgreSQL", "LATCHKEY_TEST_POSTGRES_URL", postgresCandidates(), probePostgres),
    findDatabase("Redis", "LATCHKEY_TEST_REDIS_URL", ["redis://127.0.0.1:6379"], probeRedis),
  ]);
  return {
    postgres,
    redis,
    redisServer: findProgram("redisServer"),
    redisCli: findProgram("redisCli"),
    caddy: findProgram("caddy"),
    prometheus: findProgram("prometheus"),
    chromium: findProgram("chromium"),
    postgresServer: findPostgresServer(),
  };
}

export default async function setup(project: TestProject): Promise<void> {
  const services = await findServices();
  const missing = Object.values(services).flatMap((found: Found) =>
    "missing" in found ? [found.detail ? `${found.missing} (${found.detail})` : found.missing] : [],
  );
  if (missing.length > 0 && process.env.LATCHKEY_REQUIRE_SERVICES === "1") {
    throw new Error(`LATCHKEY_REQUIRE_SERVICES=1 but a service is missing:\n  ${missing.join("\n  ")}`);
  }
  if (missing.length > 0) {
    console.warn(`The tests that need these are skipped, each with the reason:\n  ${missing.join("\n  ")}`);
  }
  project.provide("testServices", services);
}
