import { join } from "node:path";
import { freePort } from "../helpers/free-port.js";
import { startServer, tempDir } from "../helpers/processes.js";
import { runCli } from "./run-cli.js";

/** How an operator command runs: beside the database, or through a server's provisioning API. */
export type Mode = "local" | "remote";

/** A new SQLite database for the CLI to create. */
export function newSqliteDatabase(): { LATCHKEY_DATABASE_URL: string; LATCHKEY_DATABASE_CREATE: string } {
  return {
    LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
    LATCHKEY_DATABASE_CREATE: "on",
  };
}

/**
 * The database `local` names, with one organization (made by `org create`, whose owner key is
 * returned) and a provision-scoped service token, a server on it (with `serverEnv` too), and `cli`:
 * one command run beside the database, or with `--url` and the token, which must answer alike.
 */
export async function inBothModes(
  local: Record<string, string> & { LATCHKEY_DATABASE_URL: string },
  serverEnv: Record<string, string> = {},
) {
  const created = JSON.parse((await runCli(["org", "create", "--name", "acme", "--json"], local)).stdout) as {
    organization: { id: string };
    key: { api_id: string; api_key: string };
  };
  const token = JSON.parse(
    (await runCli(["service-token", "create", "--name", "ops", "--scope", "provision", "--json"], local))
      .stdout,
  ).token as string;
  const server = await startServer(
    { LATCHKEY_DATABASE_URL: local.LATCHKEY_DATABASE_URL, ...serverEnv },
    await freePort(),
  );
  const cli = (mode: Mode, ...args: string[]) =>
    mode === "local"
      ? runCli(args, local)
      : runCli([...args, "--url", server.baseUrl], { LATCHKEY_SERVICE_TOKEN: token });
  return { orgId: created.organization.id, ownerKey: created.key, server, cli };
}
