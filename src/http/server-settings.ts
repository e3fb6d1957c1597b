import type { Server } from "node:http";
import type { FastifyHttpOptions } from "fastify";
import type { Config } from "../config.js";
import { trustedHop } from "../domain/client-address.js";
import { blockListOf } from "../domain/networks.js";
import { MAX_BODY_BYTES } from "./body-errors.js";
import { clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES } from "./server-errors.js";

/**
 * Idle keep-alive connections close after this long: above the 60 s idle timeout of common load
 * balancers, so that a balancer never sends a request on a connection latchkey is closing.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** How often Node looks for requests past their timeout: a late request waits at most this much more. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * The HTTP server's settings, as Fastify options (Fastify applies them to the server it creates): how
 * long a client may take, how large a request may be, and what Node's refusals answer
 * (docs/configuration.md, docs/troubleshooting.md).
 */
export function serverSettings(
  config: Pick<Config, "requestTimeoutSeconds" | "trustedProxies">,
): FastifyHttpOptions<Server> {
  const requestTimeoutMs = config.requestTimeoutSeconds * 1000;
  return {
    // One client address for every purpose: `request.ip` walks `X-Forwarded-For` past exactly the
    // proxies the networks check trusts (LATCHKEY_TRUSTED_PROXIES), and no further.
    trustProxy: config.trustedProxies.length > 0 ? trustedHop(blockListOf(config.trustedProxies)) : false,
    bodyLimit: MAX_BODY_BYTES,
    // The whole request, headers and body: a client sending a byte a second cannot hold a connection.
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node's own refusal has an empty body; host-required.ts answers in the documented one.
      requireHostHeader: false,
    },
    // While the app closes, shutting-down.ts answers `503 shutting_down` in the documented body.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(config.requestTimeoutSeconds),
    frameworkErrors,
  };
}
