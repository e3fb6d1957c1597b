import { setTimeout as delay } from "node:timers/promises";
import { KeysResource } from "./keys.js";
import {
  OG_CONFIGS_ROUTE,
  PROXIES_ROUTE,
  ResourceFamilyClient,
  StorageDestinationsClient,
} from "./resources.js";
import { RequestSpacer, type SpacingOptions } from "./spacing.js";
import { type RetryEvent, Transport } from "./transport.js";

/** How to reach latchkey and how patient to be. Only the first three are required. */
export interface LatchkeyClientOptions {
  /** The server's base address, e.g. `https://keys.example.com` (paths like `/v1/api-keys` go below it). */
  baseUrl: string | URL;
  /** The Basic-auth username of the key the client acts as. */
  apiId: string;
  /** The secret of that key. */
  apiKey: string;
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
  /** Told before each rate-limit wait, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
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
 */
export class LatchkeyClient {
  /** The API-key operations. */
  readonly keys: KeysResource;
  /** Proxies: list, listAll, get, create, update, delete. */
  readonly proxies: ResourceFamilyClient;
  /** Storage destinations: the same methods, plus `awsExternalId()`. */
  readonly storageDestinations: StorageDestinationsClient;
  /** OG configurations: list, listAll, get, create, update, delete. */
  readonly ogConfigs: ResourceFamilyClient;

  constructor(options: LatchkeyClientOptions) {
    if (!options.apiId || !options.apiKey) throw new TypeError("apiId and apiKey are required.");
    if (options.spacing && !(Number.isInteger(options.spacing.workers) && options.spacing.workers >= 1)) {
      throw new RangeError("spacing.workers must be a whole number >= 1.");
    }
    const sleep = options.sleep ?? ((ms: number) => delay(ms));
    const random = options.random ?? Math.random;
    const now = options.now ?? Date.now;
    // Credentials live only inside the transport's private state, so logging the client shows no secret.
    const transport = new Transport({
      baseUrl: parseBaseUrl(options.baseUrl),
      credentials: { apiId: options.apiId, apiKey: options.apiKey },
      maxRetries: wholeNumber(options.maxRetries, 3, "maxRetries"),
      retryJitterMs: wholeNumber(options.retryJitterMs, 1000, "retryJitterMs"),
      timeoutMs: wholeNumber(options.timeoutMs, 30_000, "timeoutMs", 1),
      spacer: options.spacing ? new RequestSpacer(options.spacing, { now, sleep, random }) : undefined,
      onRetry: options.onRetry,
      fetch: options.fetch ?? globalThis.fetch,
      sleep,
      random,
      now,
    });
    this.keys = new KeysResource(transport);
    this.proxies = new ResourceFamilyClient(transport, PROXIES_ROUTE);
    this.storageDestinations = new StorageDestinationsClient(transport);
    this.ogConfigs = new ResourceFamilyClient(transport, OG_CONFIGS_ROUTE);
  }
}
