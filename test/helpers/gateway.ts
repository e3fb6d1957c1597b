import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { waitUntilStarted } from "./start-deadline.js";
import { killOnExit } from "./kill-on-exit.js";

/** What the echo upstream received: the request as the gateway passed it on. */
export interface EchoedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A platform service stand-in that answers every request with the request it received, as JSON. */
export interface EchoUpstream {
  /** host:port, for a gateway's configuration. */
  address: string;
  /** Every request it received, oldest first. */
  received: EchoedRequest[];
  close(): Promise<void>;
}

/** Starts the echo upstream on a free port of 127.0.0.1. */
export async function startEchoUpstream(): Promise<EchoUpstream> {
  const received: EchoedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const echoed = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(echoed);
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(echoed));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface RunningCaddy {
  /** http://127.0.0.1:<port>, the site the Caddyfile serves. */
  baseUrl: string;
  /** Everything Caddy logged so far (it logs to standard error). */
  log(): string;
  /** Kills it and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Runs `caddy run` on a Caddyfile of examples/ with its `{$NAME}` variables from `env`, its site on a
 * free port and its admin endpoint off (so it never meets the machine's own Caddy), its state in a
 * temporary directory, and waits until the site answers. Stop it with `stop()`; an exit hook kills it
 * in any case.
 */
export async function startCaddy(
  program: string,
  caddyfile: string,
  env: Record<string, string>,
  stateDir: string,
): Promise<RunningCaddy> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(program, ["run", "--config", caddyfile, "--adapter", "caddyfile"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: stateDir,
      XDG_DATA_HOME: join(stateDir, "data"),
      XDG_CONFIG_HOME: join(stateDir, "config"),
      CADDY_ADMIN: "off",
      SITE_ADDRESS: baseUrl,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = once(child, "exit");
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  killOnExit(child);
  const stop = async () => {
    kill();
    await exited;
  };
  try {
    await waitUntilStarted({
      what: "caddy",
      // Any answer: Caddy is listening.
      ready: async () => Boolean(await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(2000) })),
      failed: () => (child.exitCode === null ? undefined : `exited with ${child.exitCode}`),
      output: () => log,
      baseMs: 20_000,
      intervalMs: 100,
    });
  } catch (error) {
    kill();
    throw error;
  }
  return { baseUrl, log: () => log, stop };
}
