import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test's own (never the shared one), on its own port and data folder, that
 * the test may terminate the backends of, stop and start again: what a restart or a failover does.
 */
export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** Ends every client backend but the caller's (`pg_terminate_backend`); resolves how many. */
  terminateBackends(): Promise<number>;
  /** `pg_ctl stop`: `fast` ends sessions and shuts down cleanly, `immediate` as a crash would. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
}

/** Debian's PostgreSQL programs, newest version first: LATCHKEY_TEST_POSTGRES_BIN, else /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string | undefined {
  const chosen = process.env.LATCHKEY_TEST_POSTGRES_BIN;
  if (chosen) return existsSync(join(chosen, "initdb")) ? chosen : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

/** initdb refuses root: as root, the programs run as the `postgres` user (runuser), which owns the folder. */
function asServerUser(): { prefix: string[]; uid: number | undefined; gid: number | undefined } {
  if (process.getuid?.() !== 0) return { prefix: [], uid: undefined, gid: undefined };
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { prefix: ["runuser", "-u", "postgres", "--"], uid, gid };
}

/** `settings`: more server settings (`-c name=value` each), such as `shared_preload_libraries=pg_stat_statements`. */
export async function startOwnPostgres(settings: string[] = []): Promise<OwnPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server programs (apt-get install postgresql)");
  const user = asServerUser();
  const folder = mkdtempSync(join(tmpdir(), "latchkey-pg-"));
  if (user.uid !== undefined && user.gid !== undefined) chownSync(folder, user.uid, user.gid);
  const data = join(folder, "data");
  const log = join(folder, "server.log");
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  const program = (name: string, args: string[]) => {
    const [command, ...rest] = [...user.prefix, join(bin, name), ...args];
    return run(command as string, rest, { timeout: 60_000 });
  };
  const logTail = () => (existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "");

  await program("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = [
    `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    ...settings.map((setting) => `-c ${setting}`),
  ].join(" ");
  let running = false;
  async function start() {
    try {
      await program("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "start"]);
    } catch (error) {
      throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${logTail()}`);
    }
    running = true;
  }
  async function stop(mode: "fast" | "immediate" = "fast") {
    if (!running) return;
    await program("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
    running = false;
  }
  // A test process that dies leaves no server behind.
  const stopOnExit = () => {
    if (!running) return;
    try {
      execFileSync(user.prefix[0] ?? join(bin, "pg_ctl"), [
        ...user.prefix.slice(1),
        ...(user.prefix.length > 0 ? [join(bin, "pg_ctl")] : []),
        "-D",
        data,
        "-m",
        "immediate",
        "stop",
      ]);
    } catch {
      // already gone
    }
  };
  process.once("exit", stopOnExit);
  await start();

  return {
    url,
    port,
    start,
    stop,
    async terminateBackends() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          `select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity
           where backend_type = 'client backend' and pid <> pg_backend_pid()`,
        );
        return rows[0]?.n ?? 0;
      } finally {
        await client.end();
      }
    },
    async destroy() {
      process.off("exit", stopOnExit);
      await stop("immediate").catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
