import { basicAuth } from "./build-test-app.js";

/** What a first start prints: the default organization, its owner key and a service token. */
export interface FirstStart {
  orgId: string;
  /** The owner key's Basic `Authorization` header value. */
  authorization: string;
  serviceToken: string;
}

/** Reads the first-start notice a server wrote (to stderr); throws when it is not (yet) there. */
export function parseFirstStart(output: string): FirstStart {
  const orgId = /organization:\s+(org_\S+)/.exec(output)?.[1];
  const apiId = /api_id:\s+(\S+)/.exec(output)?.[1];
  const apiKey = /api_key:\s+(\S+)/.exec(output)?.[1];
  const serviceToken = /service token:\s+(lkst_\S+)/.exec(output)?.[1];
  if (!orgId || !apiId || !apiKey || !serviceToken) throw new Error(`no first-start notice in:\n${output}`);
  return { orgId, authorization: basicAuth(apiId, apiKey).authorization, serviceToken };
}

/** An authorize answer: a decision (200), or an error body (400, 401 invalid_service_token). */
export interface AuthorizeReplyBody {
  allowed?: boolean;
  status?: number;
  organization_id?: string | null;
  headers: Record<string, string>;
  error?: { code: string; message: string } | null;
  /** The code of an error body (not a decision). */
  code?: string;
}

/** One `POST /v1/authorize` over real HTTP; the status and parsed body. */
export async function authorizeOver(
  baseUrl: string,
  serviceToken: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: AuthorizeReplyBody }> {
  const response = await fetch(`${baseUrl}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-latchkey-service-token": serviceToken },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as AuthorizeReplyBody };
}

/** How many decisions were allowed, refused with each code. */
export function tally(decisions: { body: AuthorizeReplyBody }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { body } of decisions) {
    const key = body.allowed ? "allowed" : String(body.error?.code ?? body.code);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
