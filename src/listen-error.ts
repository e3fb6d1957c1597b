import type { Config } from "./config.js";

/**
 * A listen that failed, in words that say what to change: the address, why, and the settings
 * (`PORT`/`--port`, `HOST`/`--host`). Node's own message (`listen EADDRINUSE: address already in use
 * 127.0.0.1:8080`) names no setting.
 */
export function listenError(error: unknown, { host, port }: Pick<Config, "host" | "port">): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const problem =
    code === "EADDRINUSE"
      ? `Port ${port} of ${host} is already in use (another latchkey, or another program: \`ss -ltnp\` shows which). Stop it, or choose another port with PORT=${port + 1} or --port ${port + 1}.`
      : code === "EACCES"
        ? `Not allowed to listen on ${address}: ports below 1024 need privileges. Choose a port of 1024 or more with PORT or --port, or put a proxy in front.`
        : code === "EADDRNOTAVAIL"
          ? `Cannot listen on ${address}: ${host} is not an address of this machine. Set HOST (or --host) to one of its addresses, 127.0.0.1 or 0.0.0.0.`
          : code === "ENOTFOUND" || code === "EAI_AGAIN"
            ? `Cannot listen on ${address}: the host name ${host} does not resolve. Set HOST (or --host) to an address such as 127.0.0.1 or 0.0.0.0.`
            : undefined;
  if (problem === undefined) return error;
  const explained = new Error(problem);
  explained.cause = error;
  return explained;
}
