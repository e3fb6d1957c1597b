import { setTimeout as delay } from "node:timers/promises";
import { AdminResource } from "./admin.js";
import { KeysResource } from "./keys.js";
import { type AuthorizeInput, authorize, UsageResource } from "./platform.js";
import {
  OG_CONFIGS_ROUTE,
  PROXIES_ROUTE,
  ResourceFamilyClient,
  StorageDestinationsClient,
} from "./resources.js";
import { RequestSpacer, type SpacingOptions } from "./spacing.js";
import { type RetryEvent, Transport } from "./transport.js";
import type { AuthorizeDecision } from "./types.js";
import { type ClientLogger, type WaitEvent, waitReporter } from "./waits.js";
import { WebhooksResource } from "./webhooks.js";

/**
 * How to reach latchkey and how patient to be. `baseUrl` is required, and credentials for what the
 * client will do: `apiId` and `apiKey` for keys and usage, `serviceToken` for authorize (or all three).
 */
export interface LatchkeyClientOptions {
  /** The server's base address, e.g. `https://keys.example.com` (paths like `/v1/api-keys` go below it). */
  baseUrl: string | URL;
  /** The Basic-auth username of the key the client acts as (keys and usage). */
  apiId?: string;
  /** The secret of that key. */
  apiKey?: string;
  /**
   * A service token (`lkst_...`, from `latchkey service-token create`), sent as
   * `X-Latchkey-Service-Token` by {@link LatchkeyClient.authorize}. Only the platform's own services
   * hold one.
   */
  serviceToken?: string;
  /**
   * How many times a rate-limited request (429 `rate_limited`) is repeated after waiting `Retry-After`
   * seconds (60 when absent) plus jitter. Default 3; 0 turns retrying off. Plan-limit rejections and
   * every other error are never retried.
   */
  maxRetries?: number;
  /** Upper bound, in milliseconds, of the random delay added to each rate-limit wait. Default 1000. */
  retryJitterMs?: number;
  /** Keeps this worker under its share of each operation group's allowance; off by default. */
  spacing?: SpacingOptions;
  /** Time limit of each HTTP request, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Told before each rate-limit wait, e.g. to log it. `onWait` is told of these and of spacing waits. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Told before every wait, whatever its reason: `spacing` (the `spacing` option), `retry_after` or
   * `backoff` (a rate-limit rejection), with the milliseconds, the request and its group. The client
   * never pauses without calling it.
   */
  onWait?: (wait: WaitEvent) => void;
  /** Where each wait is also logged at debug level, e.g. a pino logger or `console`; none by default. */
  logger?: ClientLogger;
  /** The fetch to use; Node's global one by default. */
  fetch?: typeof fetch;
  /** How to wait; injectable so tests need no real waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** Source of jitter, in [0, 1); `Math.random` by default. */
  random?: () => number;
  /** Current time in milliseconds, for spacing and HTTP-date `Retry-After`; `Date.now` by default. */
  now?: () => number;
}

function wholeNumber(value: number | undefined, fallback: number, name: string, minimum = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < minimum) {
    throw new RangeError(`${name} must be a whole number >= ${minimum}.`);
  }
  return value;
}

function parseBaseUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new TypeError(`baseUrl "${String(value)}" is not a URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl must be http: or https:, not ${url.protocol}`);
  }
  // A trailing slash makes `new URL("v1/api-keys", base)` keep a path prefix such as `/latchkey/`.
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  url.search = "";
  url.hash = "";
  return url;
}

/**
 * A typed client of latchkey's REST interface that does the spec's client duties: it waits out
 * rate-limit rejections, never retries a plan limit, follows pages to the end, resends the whole
 * configuration when re-enabling, and rotates keys in the safe order. No dependencies beyond Node 20.
 *
 * ```ts
 * const client = new LatchkeyClient({ baseUrl: "https://keys.example.com", apiId, apiKey });
 * const key = await client.keys.create({ name: "worker", permissions: ["images:create"] });
 * ```
 *
 * A platform service asks it whether its own caller may do something:
 *
 * ```ts
 * const latchkey = new LatchkeyClient({ baseUrl, serviceToken: process.env.LATCHKEY_SERVICE_TOKEN });
 * const decision = await latchkey.authorize({
 *   authorization: request.headers.authorization,
 *   permission: "images:create",
 *   credits: 1,
 * });
 * ```
 */
export class LatchkeyClient {
  /** The API-key operations (Basic auth: needs `apiId` and `apiKey`). */
  readonly keys: KeysResource;
  /** The usage report (Basic auth with a `usage:read` key). */
  readonly usage: UsageResource;
  readonly #transport: Transport;
  /** Proxies: list, listAll, get, create, update, delete. */
  readonly proxies: ResourceFamilyClient;
  /** Storage destinations: the same methods, plus `awsExternalId()`. */
  readonly storageDestinations: StorageDestinationsClient;
  /** OG configurations: list, listAll, get, create, update, delete. */
  readonly ogConfigs: ResourceFamilyClient;
  /** The provisioning API (`/v1/admin`; needs a `serviceToken` with the `provision` scope). */
  readonly admin: AdminResource;
  /** The organization's webhook endpoints, attempts, tests and resends (`webhooks:*` permissions). */
  readonly webhooks: WebhooksResource;

  constructor(options: LatchkeyClientOptions) {
    const hasKey = Boolean(options.apiId) || Boolean(options.apiKey);
    if (hasKey && !(options.apiId && options.apiKey)) {
      throw new TypeError("apiId and apiKey go together: give both or neither.");
    }
    if (!hasKey && !options.serviceToken) {
      throw new TypeError("Give apiId and apiKey (keys, usage), serviceToken (authorize), or both.");
    }
    if (options.spacing && !(Number.isInteger(options.spacing.workers) && options.spacing.workers >= 1)) {
      throw new RangeError("spacing.workers must be a whole number >= 1.");
    }
    const sleep = options.sleep ?? ((ms: number) => delay(ms));
    const random = options.random ?? Math.random;
    const now = options.now ?? Date.now;
    // Credentials live only inside the transport's private state, so logging the client shows no secret.
    const transport = new Transport({
      baseUrl: parseBaseUrl(options.baseUrl),
      credentials:
        options.apiId && options.apiKey ? { apiId: options.apiId, apiKey: options.apiKey } : undefined,
      serviceToken: options.serviceToken || undefined,
      maxRetries: wholeNumber(options.maxRetries, 3, "maxRetries"),
      retryJitterMs: wholeNumber(options.retryJitterMs, 1000, "retryJitterMs"),
      timeoutMs: wholeNumber(options.timeoutMs, 30_000, "timeoutMs", 1),
      spacer: options.spacing ? new RequestSpacer(options.spacing, { now, sleep, random }) : undefined,
      onRetry: options.onRetry,
      onWait: waitReporter(options.onWait, options.logger),
      fetch: options.fetch ?? globalThis.fetch,
      sleep,
      random,
      now,
    });
    this.keys = new KeysResource(transport);
    this.usage = new UsageResource(transport);
    this.proxies = new ResourceFamilyClient(transport, PROXIES_ROUTE);
    this.storageDestinations = new StorageDestinationsClient(transport);
    this.ogConfigs = new ResourceFamilyClient(transport, OG_CONFIGS_ROUTE);
    this.admin = new AdminResource(transport);
    this.webhooks = new WebhooksResource(transport, "/v1");
    this.#transport = transport;
  }

  /**
   * Asks latchkey whether the caller who sent `authorization` may do this (`POST /v1/authorize`, with
   * the `serviceToken` option). Resolves to the decision, allowed or not: when `allowed` is false,
   * answer your caller with its `status`, `headers` and `error` body as they are; when true, send its
   * `headers` too (`x-renders-*`, `RateLimit`) and act for `organization_id`. Credits are consumed
   * only when allowed. Throws a `LatchkeyError` when latchkey could not decide: 400 (unknown
   * permission or group, bad credits), 401 `invalid_service_token`, or a network failure.
   */
  async authorize(input: AuthorizeInput): Promise<AuthorizeDecision> {
    return authorize(this.#transport, input);
  }
}
