import type { NodeProcess } from "./node-processes.js";

/** Basic credentials, as a request's headers. */
export type Auth = { authorization: string };

/** A node's answer, its JSON body parsed, and how long it took. */
export interface Reply {
  status: number;
  body: { code?: string; id?: string; [member: string]: unknown } | undefined;
  headers: Headers;
  ms: number;
}

/** One request to a node, with a JSON body when one is given. */
export async function call(
  node: NodeProcess,
  method: string,
  path: string,
  auth: Auth,
  body?: unknown,
): Promise<Reply> {
  const started = performance.now();
  const response = await fetch(`${node.baseUrl}${path}`, {
    method,
    headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
    ms: performance.now() - started,
  };
}

/** How many replies had each status. */
export function statuses(replies: readonly Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of replies) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * Requests the limiter admitted: every answer from the rate-limit step on carries `RateLimit`, and
 * only the limiter's refusals are 429 or 503; a later failure (say, a database timeout on a loaded
 * machine) still held its slot.
 */
export function admitted(replies: readonly Reply[]): number {
  return replies.filter((r) => r.headers.has("ratelimit") && r.status !== 429 && r.status !== 503).length;
}

/**
 * Requests that reached the limiter: it answered them (`RateLimit` on every answer from that step on)
 * or refused to decide them (`503 rate_limiter_unavailable`, which counts against exactness).
 */
export function asked(replies: readonly Reply[]): number {
  return replies.filter((r) => r.headers.has("ratelimit") || r.body?.code === "rate_limiter_unavailable")
    .length;
}
