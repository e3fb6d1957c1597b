import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { basicAuth } from "./build-test-app.js";
import { freePort } from "./free-port.js";
import { type EchoUpstream, type RunningCaddy, startCaddy, startEchoUpstream } from "./gateway.js";
import { latchkey, type ServerProcess, startSuiteServer } from "./processes.js";

const examples = new URL("../../examples/", import.meta.url).pathname;

/** latchkey on SQLite behind the unmodified examples/Caddyfile, an echo upstream behind both. */
export interface ExampleGateway {
  server: ServerProcess;
  upstream: EchoUpstream;
  gateway: RunningCaddy;
  /** The owner key's `Authorization` header (all future permissions) of the one organization. */
  owner: string;
  stop(): Promise<void>;
}

/**
 * Starts the documented gateway setup: an organization and a service token made with the real CLI,
 * latchkey serving `routes` (a file's path, or a table written beside the database), Caddy in front.
 */
export async function startExampleGateway(
  caddy: string,
  routes: string | readonly object[],
): Promise<ExampleGateway> {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-gateway-"));
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}` };
  const { key } = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout);
  const owner = basicAuth(key.api_id, key.api_key).authorization;
  const token = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "caddy", "--json"], env)).stdout,
  ).token as string;
  const routesFile = typeof routes === "string" ? routes : join(dir, "routes.json");
  if (typeof routes !== "string") writeFileSync(routesFile, JSON.stringify(routes));
  const upstream = await startEchoUpstream();
  const server = await startSuiteServer(
    { ...env, LATCHKEY_ROUTES: routesFile, LATCHKEY_BOOTSTRAP: "off" },
    await freePort(),
  );
  const gateway = await startCaddy(
    caddy,
    join(examples, "Caddyfile"),
    {
      LATCHKEY_ADDRESS: new URL(server.baseUrl).host,
      UPSTREAM_ADDRESS: upstream.address,
      LATCHKEY_SERVICE_TOKEN: token,
    },
    join(dir, "caddy"),
  );
  return {
    server,
    upstream,
    gateway,
    owner,
    async stop() {
      await gateway.stop();
      server.child.kill("SIGKILL");
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
