import { LatchkeyError } from "../domain/errors.js";
import { isPlainHost } from "../domain/redirect-uris.js";
import type { OauthClient, OauthStore } from "../store/oauth-store.js";

/** A validated authorization request, ready for the consent page. */
export interface AuthorizationRequest {
  client: OauthClient;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  state: string | undefined;
}

/**
 * Checks an authorization request. An unknown client or an unregistered redirect URI is shown as an
 * error page, never followed (the request could come from anyone); PKCE S256 is required.
 */
export async function checkAuthorizationRequest(
  store: Pick<OauthStore, "findClient">,
  query: Record<string, string | undefined>,
  canonicalResource: string,
): Promise<AuthorizationRequest> {
  const client = query.client_id ? await store.findClient(query.client_id) : undefined;
  if (!client) throw new LatchkeyError("invalid_request", "Unknown client_id: register the client first.");
  const redirectUri =
    query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    throw new LatchkeyError("invalid_request", "redirect_uri is not one this client registered.");
  }
  // Registered before hosts were checked: never named in the consent page's policy.
  if (!isPlainHost(new URL(redirectUri).hostname)) {
    throw new LatchkeyError("invalid_request", "redirect_uri's host is not a host name or an IP address.");
  }
  if (query.response_type !== "code")
    throw new LatchkeyError("invalid_request", "response_type must be code.");
  if (query.code_challenge_method !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge ?? "")) {
    throw new LatchkeyError(
      "invalid_request",
      "PKCE is required: code_challenge with code_challenge_method S256.",
    );
  }
  const resource = query.resource ?? canonicalResource;
  if (resource !== canonicalResource) {
    throw new LatchkeyError(
      "invalid_request",
      `resource must be ${canonicalResource}, this server's MCP endpoint.`,
    );
  }
  return { client, redirectUri, codeChallenge: query.code_challenge ?? "", resource, state: query.state };
}
