// A PostgreSQL cluster of a bench script's own (initdb and pg_ctl from /usr/lib/postgresql/<newest>/bin),
// on a free port in a temporary folder, which the script may restart and whose backends it may end.
// As root, the programs run as the `postgres` user, which owns the folder (initdb refuses root).
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.mjs";

const run = promisify(execFile);

function binDir() {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error("no PostgreSQL server programs under /usr/lib/postgresql");
  return join(root, versions[0], "bin");
}

export async function startOwnPostgres() {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const prefix = asRoot ? ["runuser", "-u", "postgres", "--"] : [];
  const folder = mkdtempSync(join(tmpdir(), "latchkey-soak-pg-"));
  if (asRoot) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(folder, id("-u"), id("-g"));
  }
  const data = join(folder, "data");
  const port = await freePort();
  const program = (name, args) => {
    const [command, ...rest] = [...prefix, join(bin, name), ...args];
    return run(command, rest, { timeout: 120_000 });
  };
  await program("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const log = join(folder, "server.log");
  const ctl = (...args) => program("pg_ctl", ["-D", data, ...args]);
  await ctl("-o", options, "-l", log, "-w", "start");
  let running = true;
  const stopOnExit = () => {
    if (!running) return;
    try {
      execFileSync(prefix[0] ?? join(bin, "pg_ctl"), [
        ...prefix.slice(1),
        ...(prefix.length > 0 ? [join(bin, "pg_ctl")] : []),
        "-D",
        data,
        "-m",
        "immediate",
        "stop",
      ]);
    } catch {
      // already stopped
    }
  };
  process.once("exit", stopOnExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** `pg_ctl restart -m fast`: every session ends, the server comes back on the same port. */
    async restart() {
      await ctl("-m", "fast", "-o", options, "-l", log, "-w", "restart");
    },
    /** Ends every client backend (what a failover or an idle timeout does to the pool). */
    async terminateBackends() {
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
      await client.connect();
      try {
        const { rows } = await client.query(
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
      await ctl("-m", "immediate", "-w", "stop").catch(() => {});
      running = false;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
