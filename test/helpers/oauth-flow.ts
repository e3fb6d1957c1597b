import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { buildTestApp } from "./build-test-app.js";
import { consoleUser, form, signIn } from "./console-session.js";
import { MCP_POST_HEADERS, rpc } from "../mcp/mcp-client.js";

export const REDIRECT = "http://127.0.0.1:9/callback";
/** Without LATCHKEY_PUBLIC_URL the issuer is the configured listen address (HOST and PORT's defaults). */
export const ISSUER = "http://127.0.0.1:8080";
export const RESOURCE = `${ISSUER}/mcp`;

/**
 * An app with an organization, an admin signed in to the console and a registered client; the steps
 * of the OAuth flow as `app.inject` requests (the console's consent, the token endpoint, `/mcp`).
 */
export async function oauthFlow(options: Parameters<typeof buildTestApp>[0] = {}) {
  const testApp = await buildTestApp(options);
  const owner = await testApp.createOrganization();
  await consoleUser(testApp, owner.orgId, "admin");
  const app = testApp.app;
  const registered = await app.inject({
    method: "POST",
    url: "/oauth/register",
    payload: { client_name: "Refusals", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
  });
  expect(registered.statusCode).toBe(201);
  const clientId = registered.json().client_id as string;
  const admin = await signIn(app, "admin@example.com");
  const adminUser = await testApp.services.consoleStore.findUserByEmail("admin@example.com");
  if (!adminUser) throw new Error("the admin was not created");

  /** Consents as the admin; returns the code and the verifier that goes with it. */
  async function authorize(extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const params = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      resource: RESOURCE,
      ...extra,
    };
    const consent = await admin.post("/console/oauth/authorize", {
      ...params,
      org: owner.orgId,
      permissions: ["usage:read"],
      decision: "allow",
    });
    return {
      consent,
      verifier,
      code: new URL(String(consent.headers.location ?? REDIRECT)).searchParams.get("code") ?? "",
    };
  }

  const token = (fields: Record<string, string>) =>
    app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: form({ client_id: clientId, ...fields }),
    });

  async function tokens(extra: Record<string, string> = {}) {
    const { code, verifier } = await authorize(extra);
    const answer = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      resource: RESOURCE,
    });
    expect(answer.statusCode).toBe(200);
    return answer.json<{ access_token: string; refresh_token: string }>();
  }

  const mcp = (accessToken: string, host = "localhost:80") =>
    app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...MCP_POST_HEADERS, host, authorization: `Bearer ${accessToken}` },
      payload: rpc("tools/list"),
    });

  return { testApp, app, owner, admin, adminUser, clientId, authorize, token, tokens, mcp };
}
