import { describe, expect, test } from "vitest";
import { LatchkeyClient, type LatchkeyClientOptions, LatchkeyError, type WaitEvent } from "@latchkey/client";
import { parseRetryAfter } from "../../packages/client/src/retry-policy.js";

const PAGE = { data: [], pagination: { next_page_start: null } };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function rateLimited(headers: Record<string, string> = { "retry-after": "7" }): Response {
  return json(
    429,
    { statusCode: 429, error: "Too Many Requests", message: "Rate limit exceeded.", code: "rate_limited" },
    headers,
  );
}

function planLimited(): Response {
  return json(429, {
    statusCode: 429,
    error: "Plan limit exceeded",
    message: "Image credits are used up for this billing period.",
    code: "plan_limit_exceeded",
  });
}

/**
 * A client over scripted responses, with time that only moves when the client sleeps: the retry logic
 * is exercised without any real waiting.
 */
function scripted(responses: Array<() => Response>, options: Partial<LatchkeyClientOptions> = {}) {
  const sleeps: number[] = [];
  const requests: { url: string; method: string; authorization: string | null }[] = [];
  let now = 1_000_000;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    requests.push({
      url: typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
      method: init?.method ?? "GET",
      authorization: new Headers(init?.headers).get("authorization"),
    });
    const next = responses.shift();
    if (!next) throw new Error("no more scripted responses");
    return next();
  };
  const client = new LatchkeyClient({
    baseUrl: "http://latchkey.test/base",
    apiId: "lkid_test",
    apiKey: "lksk_test",
    fetch,
    random: () => 0.5,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    ...options,
  });
  return { client, sleeps, requests };
}

describe("waiting out rate limits", () => {
  test("a rate-limit 429 is repeated after Retry-After seconds plus jitter", async () => {
    const { client, sleeps, requests } = scripted([() => rateLimited(), () => json(200, PAGE)]);
    await expect(client.keys.list()).resolves.toEqual(PAGE);
    expect(sleeps).toEqual([7000 + 500]);
    expect(requests).toHaveLength(2);
  });

  test("without Retry-After the client waits the spec's 60 seconds", async () => {
    const { client, sleeps } = scripted([() => rateLimited({}), () => json(200, PAGE)], { retryJitterMs: 0 });
    await client.keys.list();
    expect(sleeps).toEqual([60_000]);
  });

  test("gives up after maxRetries and throws the last rejection", async () => {
    const { client, sleeps, requests } = scripted(
      Array(4).fill(() => rateLimited()),
      { retryJitterMs: 0 },
    );
    const error = await client.keys.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LatchkeyError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 7 });
    expect(requests).toHaveLength(4); // the first try and the default 3 retries
    expect(sleeps).toEqual([7000, 7000, 7000]);
  });

  test("a rejected create is repeated with the same body", async () => {
    const created = { id: "key_1", api_key: "lksk_x" };
    const { client, requests } = scripted([() => rateLimited(), () => json(200, created)]);
    await expect(client.keys.create({ permissions: ["usage:read"] })).resolves.toEqual(created);
    expect(requests.map((request) => request.method)).toEqual(["POST", "POST"]);
  });

  test("a plan-limit 429 is thrown at once, never retried", async () => {
    const { client, sleeps, requests } = scripted([() => planLimited(), () => json(200, PAGE)]);
    await expect(client.keys.list()).rejects.toMatchObject({ status: 429, code: "plan_limit_exceeded" });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test("a 429 without a code that names a plan limit is not retried either", async () => {
    const body = { statusCode: 429, error: "Too Many Requests", message: "Plan limit reached: no credits." };
    const { client, requests } = scripted([() => json(429, body), () => json(200, PAGE)]);
    await expect(client.keys.list()).rejects.toMatchObject({ status: 429 });
    expect(requests).toHaveLength(1);
  });

  test("other 4xx and 5xx errors are thrown at once with the server's body", async () => {
    const notFound = { statusCode: 404, error: "Not Found", message: "No API key.", code: "not_found" };
    const internal = { statusCode: 500, error: "Internal Server Error", message: "Boom.", code: "internal" };
    for (const [status, body] of [
      [404, notFound],
      [500, internal],
    ] as const) {
      const { client, requests } = scripted([() => json(status, body), () => json(200, PAGE)]);
      const error = await client.keys.get("key_1").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LatchkeyError);
      expect(error).toMatchObject({ status, code: body.code, message: body.message, body });
      expect(requests).toHaveLength(1);
    }
  });

  test("Retry-After may be an HTTP date", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5);
    expect(parseRetryAfter("12", now)).toBe(12);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("requests and failures", () => {
  test("paths go below the base URL and credentials travel as HTTP Basic", async () => {
    const { client, requests } = scripted([() => json(200, PAGE)]);
    await client.keys.list({
      count: 5,
      includeDisabled: true,
      withPermission: ["usage:read", "images:read"],
    });
    expect(requests[0]?.url).toBe(
      "http://latchkey.test/base/v1/api-keys?count=5&include_disabled=true&with_permission=usage%3Aread&with_permission=images%3Aread",
    );
    expect(requests[0]?.authorization).toBe(`Basic ${Buffer.from("lkid_test:lksk_test").toString("base64")}`);
  });

  test("a server that cannot be reached gives status 0 and code network_error", async () => {
    const client = new LatchkeyClient({
      baseUrl: "http://latchkey.test",
      apiId: "a",
      apiKey: "b",
      fetch: async () => {
        throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
      },
    });
    const error = await client.keys.list().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 0, code: "network_error" });
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  test("a body that is not latchkey's JSON gives code invalid_response", async () => {
    const { client } = scripted([() => new Response("<html>Bad gateway</html>", { status: 502 })]);
    await expect(client.keys.list()).rejects.toMatchObject({ status: 502, code: "invalid_response" });
  });

  test("listAll stops with an error instead of looping when a cursor repeats", async () => {
    const page = { data: [], pagination: { next_page_start: "same" } };
    const { client } = scripted([() => json(200, page), () => json(200, page), () => json(200, page)]);
    const pages = async () => {
      for await (const _ of client.keys.listAll()) {
        // drain
      }
    };
    await expect(pages()).rejects.toMatchObject({ code: "invalid_response" });
  });

  test("the secret does not show when the client is logged", async () => {
    const { inspect } = await import("node:util");
    const { client } = scripted([]);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain("lksk_test");
    expect(JSON.stringify(client)).not.toContain("lksk_test");
  });
});

describe("spacing between workers", () => {
  test("each request waits window / (quota / workers), learned from RateLimit-Policy", async () => {
    const page = () => json(200, PAGE, { "ratelimit-policy": '"api-key:read";q=10;w=2' });
    const { client, sleeps } = scripted([page, page, page], {
      spacing: { workers: 2, jitterMs: 0 },
    });
    await client.keys.list();
    await client.keys.list();
    await client.keys.list();
    // 10 requests per 2 s shared by 2 workers: 5 each, one every 400 ms.
    expect(sleeps).toEqual([400, 400]);
  });

  test("before any response the spec's defaults apply, per group", async () => {
    const { client, sleeps } = scripted([() => json(200, PAGE), () => json(200, { id: "key_1" })], {
      spacing: { workers: 4, jitterMs: 0 },
    });
    await client.keys.list();
    await client.keys.create({ permissions: [] });
    // Different groups do not wait for each other.
    expect(sleeps).toEqual([]);
  });

  test("concurrent calls of one client queue behind each other", async () => {
    const page = () => json(200, PAGE, { "ratelimit-policy": '"api-key:write";q=20;w=60' });
    // All three start at the same instant: time stands still while they book their slots.
    const sleeps: number[] = [];
    const { client } = scripted([page, page, page], {
      spacing: { workers: 1, jitterMs: 100 },
      now: () => 0,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await Promise.all([
      client.keys.disable("key_1"),
      client.keys.disable("key_2"),
      client.keys.disable("key_3"),
    ]);
    // 20 per 60 s: 3 s apart, plus up to 100 ms of jitter (random() is 0.5 here).
    expect(sleeps).toEqual([50, 3050, 6050]);
  });
});

describe("the client says when it waits", () => {
  test("every spacing wait and every retry wait goes to onWait, with its reason and milliseconds", async () => {
    const limited = () => json(200, PAGE, { "ratelimit-policy": '"api-key:read";q=10;w=2' });
    const waits: WaitEvent[] = [];
    const retries: number[] = [];
    const { client, sleeps } = scripted(
      [limited, limited, () => rateLimited(), () => rateLimited({}), limited],
      {
        spacing: { workers: 2, jitterMs: 0 },
        retryJitterMs: 0,
        onWait: (wait) => waits.push(wait),
        onRetry: (event) => retries.push(event.delayMs),
      },
    );
    await client.keys.list();
    await client.keys.list();
    await client.keys.list();

    const summary = waits.map(({ reason, ms, method, path, group, attempt }) => ({
      reason,
      ms,
      method,
      path,
      group,
      attempt,
    }));
    const request = { method: "GET", path: "/v1/api-keys", group: "api-key:read" };
    expect(summary).toEqual([
      { reason: "spacing", ms: 400, ...request, attempt: undefined },
      { reason: "spacing", ms: 400, ...request, attempt: undefined },
      { reason: "retry_after", ms: 7000, ...request, attempt: 1 },
      // No spacing wait after a retry wait: its slot has long passed.
      { reason: "backoff", ms: 60_000, ...request, attempt: 2 },
    ]);
    expect(waits[2]?.error).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 7 });
    // The client sleeps exactly what it announced, and onRetry still hears of the retries.
    expect(sleeps).toEqual(waits.map((wait) => wait.ms));
    expect(retries).toEqual([7000, 60_000]);
  });

  test("a client with a logger writes each wait at debug level, without the secret", async () => {
    const lines: { details: Record<string, unknown>; message: string }[] = [];
    const { client } = scripted([() => rateLimited(), () => json(200, PAGE)], {
      retryJitterMs: 0,
      logger: { debug: (details, message) => lines.push({ details, message }) },
    });
    await client.keys.list();
    expect(lines).toEqual([
      {
        details: {
          reason: "retry_after",
          ms: 7000,
          method: "GET",
          path: "/v1/api-keys",
          group: "api-key:read",
          attempt: 1,
          code: "rate_limited",
          status: 429,
        },
        message:
          "latchkey client: waiting 7000 ms before GET /v1/api-keys (retry_after, api-key:read, rate_limited)",
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain("lksk_test");
  });

  test("a request that does not wait tells nobody", async () => {
    const waits: WaitEvent[] = [];
    const { client } = scripted([() => json(200, PAGE)], { onWait: (wait) => waits.push(wait) });
    await client.keys.list();
    expect(waits).toEqual([]);
  });
});
