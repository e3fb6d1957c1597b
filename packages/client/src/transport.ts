import { LatchkeyError, SecretWithheldError } from "./errors.js";
import { isRateLimitRejection, isTransientFailure, parseRetryAfter, retryDelayMs } from "./retry-policy.js";
import type { RequestSpacer } from "./spacing.js";
import type { ErrorBody } from "./types.js";
import type { WaitEvent } from "./waits.js";

/** The server's mark on a replayed create whose secret it could not keep (its members are ""). */
const SECRET_WITHHELD_HEADER = "idempotent-secret-withheld";

/** The Basic-auth pair a request is sent with. */
export interface Credentials {
  apiId: string;
  apiKey: string;
}

/** Told before each wait on a rate-limit rejection, e.g. to print "waiting 12 s". */
export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client is about to wait, in milliseconds. */
  delayMs: number;
  /** The rejection being waited out. */
  error: LatchkeyError;
}

export interface TransportOptions {
  baseUrl: URL;
  /** Basic credentials for management and usage requests; absent for a client that only authorizes. */
  credentials: Credentials | undefined;
  /** The service token sent to `/v1/authorize`; absent for a client that only manages keys. */
  serviceToken: string | undefined;
  maxRetries: number;
  retryJitterMs: number;
  timeoutMs: number;
  spacer: RequestSpacer | undefined;
  onRetry: ((event: RetryEvent) => void) | undefined;
  /** Told before every wait, spacing and retries alike (`onWait` and the logger, see waits.ts). */
  onWait: (wait: WaitEvent) => void;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
}

/** One management request. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below the base URL, e.g. `/v1/api-keys`. */
  path: string;
  query?: URLSearchParams;
  /** JSON body; none when undefined. */
  body?: unknown;
  /** The operation group the request counts against, for spacing; none for unlimited endpoints. */
  group?: string;
  /** Credentials other than the client's own (rotation verifies the new key with this). */
  credentials?: Credentials;
  /** `service-token`: sent with the client's service token instead of Basic auth (authorize). */
  authentication?: "basic" | "service-token";
  /**
   * Sent as `Idempotency-Key` on every attempt (creates): the server answers a repeat with the first
   * response, so such a request is also retried after a 503, a lost connection or a timeout.
   */
  idempotencyKey?: string;
}

/** The header a platform service sends its service token in (docs/platform.md). */
export const SERVICE_TOKEN_HEADER = "x-latchkey-service-token";

function basicAuthorization({ apiId, apiKey }: Credentials): string {
  return `Basic ${Buffer.from(`${apiId}:${apiKey}`, "utf8").toString("base64")}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function asErrorBody(value: unknown): ErrorBody | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const body = value as Partial<ErrorBody>;
  return typeof body.message === "string" ? (body as ErrorBody) : undefined;
}

/**
 * Sends requests: authentication, JSON, spacing, and waiting out rate-limit rejections. Retrying a
 * rejected create is safe because a 429 comes before any effect (docs/keys.md, order of checks). A
 * request with an `Idempotency-Key` (every create) is also retried after a 503, a network failure or
 * a timeout, with the same key: if the first attempt did create, the server answers with its response
 * and creates nothing. Nothing else is retried: a second update or delete is not always harmless.
 */
export class Transport {
  readonly #options: TransportOptions;
  #credentials: Credentials | undefined;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#credentials = options.credentials;
  }

  /** The api_id this client authenticates with. */
  get apiId(): string | undefined {
    return this.#credentials?.apiId;
  }

  /** Switches to other credentials, after the client's own key was rotated. */
  useCredentials(credentials: Credentials): void {
    this.#credentials = credentials;
  }

  /** Sends one request; resolves to the parsed JSON (undefined for 204) or throws a LatchkeyError. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const { maxRetries, spacer, onRetry, onWait, sleep, random, retryJitterMs } = this.#options;
    const request = {
      method: spec.method,
      path: spec.path,
      ...(spec.group !== undefined && { group: spec.group }),
    };
    for (let attempt = 0; ; attempt++) {
      if (spec.group !== undefined) {
        await spacer?.waitTurn(spec.group, (ms) => onWait({ reason: "spacing", ms, ...request }));
      }
      let response: Response;
      try {
        response = await this.#send(spec);
      } catch (error) {
        // A lost connection is retried only where a retry cannot do the work twice: a create that
        // carries an Idempotency-Key.
        if (spec.idempotencyKey === undefined || attempt >= maxRetries) throw error;
        const delayMs = retryDelayMs(1, retryJitterMs, random);
        onRetry?.({ attempt: attempt + 1, delayMs, error: error as LatchkeyError });
        onWait({
          reason: "backoff",
          ms: delayMs,
          attempt: attempt + 1,
          error: error as LatchkeyError,
          ...request,
        });
        await sleep(delayMs);
        continue;
      }
      if (spec.group !== undefined) spacer?.learn(response.headers.get("ratelimit-policy"));
      const text = await response.text();
      const json = text === "" ? undefined : parseJson(text);
      if (response.ok) {
        if (text !== "" && json === undefined) throw this.#invalidResponse(response);
        // Never hand back a record whose secret is "" as if it were the secret.
        if (response.headers.get(SECRET_WITHHELD_HEADER) === "true") {
          throw new SecretWithheldError(
            json as Record<string, unknown>,
            response.status,
            response.headers.get("x-request-id") ?? undefined,
          );
        }
        return json as T;
      }
      const error = this.#errorFrom(response, asErrorBody(json));
      const transient = spec.idempotencyKey !== undefined && isTransientFailure(response.status, error.body);
      if (!(transient || isRateLimitRejection(response.status, error.body)) || attempt >= maxRetries) {
        throw error;
      }
      const delayMs = retryDelayMs(
        error.retryAfterSeconds ?? (transient ? 1 : undefined),
        retryJitterMs,
        random,
      );
      onRetry?.({ attempt: attempt + 1, delayMs, error });
      const reason = error.retryAfterSeconds === undefined ? "backoff" : "retry_after";
      onWait({ reason, ms: delayMs, ...request, attempt: attempt + 1, error });
      await sleep(delayMs);
    }
  }

  /**
   * Sends one GET whose body is text read as it arrives (an export): yields each chunk as received.
   * An error answer throws its LatchkeyError before anything is yielded. The timeout applies until the
   * status arrives, then to each wait for the next chunk (never to the time the caller spends on one);
   * a connection that ends before the body does throws `network_error`. Never retried.
   */
  async *streamText(spec: RequestSpec): AsyncGenerator<string> {
    const controller = new AbortController();
    const timeoutMs = this.#options.timeoutMs;
    const timedOut = () => controller.abort(new DOMException("The request timed out.", "TimeoutError"));
    let timer = setTimeout(timedOut, timeoutMs);
    try {
      const response = await this.#send(spec, controller.signal);
      clearTimeout(timer);
      if (!response.ok) {
        const text = await response.text();
        throw this.#errorFrom(response, asErrorBody(text === "" ? undefined : parseJson(text)));
      }
      if (!response.body) return;
      const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        timer = setTimeout(timedOut, timeoutMs);
        let read: { done: boolean; value?: Uint8Array | undefined };
        try {
          read = await reader.read();
        } catch (cause) {
          const detail = cause instanceof Error ? describeNetworkError(cause) : String(cause);
          throw new LatchkeyError({
            status: 0,
            code: "network_error",
            message: `The answer from ${new URL(this.#options.baseUrl).origin} was cut short: ${detail}.`,
            cause,
          });
        } finally {
          clearTimeout(timer);
        }
        if (read.done || read.value === undefined) break;
        yield decoder.decode(read.value, { stream: true });
      }
      const rest = decoder.decode();
      if (rest !== "") yield rest;
    } finally {
      clearTimeout(timer);
      // A caller that stopped early: the rest of the body is not read.
      controller.abort();
    }
  }

  async #send(spec: RequestSpec, signal?: AbortSignal): Promise<Response> {
    const url = new URL(spec.path.replace(/^\//, ""), this.#options.baseUrl);
    if (spec.query) url.search = spec.query.toString();
    const headers: Record<string, string> = { accept: "application/json", ...this.#authentication(spec) };
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotencyKey !== undefined) headers["idempotency-key"] = spec.idempotencyKey;
    try {
      return await this.#options.fetch(url, {
        method: spec.method,
        headers,
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        signal: signal ?? AbortSignal.timeout(this.#options.timeoutMs),
        redirect: "error",
      });
    } catch (cause) {
      const detail = cause instanceof Error ? describeNetworkError(cause) : String(cause);
      throw new LatchkeyError({
        status: 0,
        code: "network_error",
        message: `Could not reach ${url.origin}: ${detail}.`,
        cause,
      });
    }
  }

  #authentication(spec: RequestSpec): Record<string, string> {
    if (spec.authentication === "service-token") {
      if (this.#options.serviceToken === undefined) {
        throw new TypeError("This request needs the client's serviceToken option (a lkst_... token).");
      }
      return { [SERVICE_TOKEN_HEADER]: this.#options.serviceToken };
    }
    const credentials = spec.credentials ?? this.#credentials;
    if (credentials === undefined) {
      throw new TypeError("This request needs the client's apiId and apiKey options (Basic auth).");
    }
    return { authorization: basicAuthorization(credentials) };
  }

  #errorFrom(response: Response, body: ErrorBody | undefined): LatchkeyError {
    if (!body) return this.#invalidResponse(response);
    return new LatchkeyError({
      status: response.status,
      code: body.code ?? `http_${response.status}`,
      message: body.message,
      body,
      retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after"), this.#options.now()),
      requestId: response.headers.get("x-request-id") ?? undefined,
    });
  }

  #invalidResponse(response: Response): LatchkeyError {
    return new LatchkeyError({
      status: response.status,
      code: "invalid_response",
      message: `The server answered ${response.status} ${response.statusText} with a body that is not latchkey's JSON; is the URL right?`,
      requestId: response.headers.get("x-request-id") ?? undefined,
    });
  }
}

/** `fetch failed` says nothing; the useful part (ECONNREFUSED, a timeout) is in its cause. */
function describeNetworkError(error: Error): string {
  if (error.name === "TimeoutError") return "the request timed out";
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === "string") return `${error.message} (${cause.code})`;
  if (cause && typeof cause.message === "string") return `${error.message} (${cause.message})`;
  return error.message;
}
