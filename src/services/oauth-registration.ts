import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Clock } from "../domain/clock.js";
import { randomBase62 } from "../domain/credentials.js";
import { REDIRECT_URI_LIMITS, redirectUriProblem } from "../domain/redirect-uris.js";
import type { RateLimiter } from "../ratelimit/rate-limiter.js";
import { deploymentBucket } from "../redis/key-names.js";
import type { OauthClient, OauthStore } from "../store/oauth-store.js";
import { OauthError } from "./oauth-error.js";

/** Registrations per client address per hour (the exact limiter), and how long an unconsented client lives. */
export const REGISTRATION_LIMITS = { perAddressPerHour: 30, unconsentedMs: 24 * 3_600_000 } as const;
const HOUR_MS = 3_600_000;
/** Codes are kept this long after they expire, so that a late replay still finds what it issued. */
const EXPIRED_CODES_KEPT_MS = 24 * 3_600_000;

/**
 * A client's name as the consent page shows it: control and format characters (which could reorder
 * or hide what follows) removed, spaces collapsed, at most 100 characters.
 */
export function displayName(name: string | undefined): string {
  const cleaned = (name ?? "")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 100);
  return cleaned || "MCP client";
}

/**
 * Dynamic client registration (RFC 7591), bounded: it needs no credentials, so each client address
 * registers at most 30 clients an hour, each with at most 10 redirect URIs of at most 2,000
 * characters, and a client nobody consented to within a day is deleted.
 */
export function createOauthRegistration(deps: {
  store: OauthStore;
  clock: Clock;
  limiter: RateLimiter;
  /** Namespace of the limiter's buckets (LATCHKEY_REDIS_PREFIX). */
  namespace: string;
}) {
  const { store, clock, limiter, namespace } = deps;

  async function admit(address: string) {
    const decision = await limiter.consume(
      deploymentBucket(namespace, "oauth-register", address),
      REGISTRATION_LIMITS.perAddressPerHour,
      HOUR_MS,
    );
    if (decision.type === "deny") {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new OauthError(
        "rate_limited",
        `Too many client registrations from this address: at most ${REGISTRATION_LIMITS.perAddressPerHour} an hour. Try again in ${seconds} seconds.`,
        429,
        seconds,
      );
    }
  }

  return {
    /** RFC 7591: a public client (PKCE, no secret) with exact redirect URIs; `address` is the caller's. */
    async register(body: unknown, address: string) {
      await admit(address);
      const parsed = OAuthClientMetadataSchema.safeParse(body);
      if (!parsed.success)
        throw new OauthError("invalid_client_metadata", "The registration is not valid client metadata.");
      const metadata = parsed.data;
      const uris = metadata.redirect_uris;
      if (uris.length === 0 || uris.length > REDIRECT_URI_LIMITS.count) {
        throw new OauthError(
          "invalid_redirect_uri",
          `redirect_uris must hold 1 to ${REDIRECT_URI_LIMITS.count} URIs.`,
        );
      }
      for (const uri of uris) {
        const problem = redirectUriProblem(uri);
        if (problem) {
          throw new OauthError(
            "invalid_redirect_uri",
            `The redirect URI ${JSON.stringify(uri.slice(0, 100))} ${problem}: redirect_uris must be https URLs, or http URLs on localhost, 127.0.0.1 or [::1], without a fragment.`,
          );
        }
      }
      if (metadata.token_endpoint_auth_method && metadata.token_endpoint_auth_method !== "none") {
        throw new OauthError(
          "invalid_client_metadata",
          "Only public clients are registered: token_endpoint_auth_method none, with PKCE.",
        );
      }
      const client: OauthClient = {
        clientId: `mcl_${randomBase62(22)}`,
        clientName: displayName(metadata.client_name),
        redirectUris: uris,
        createdAt: clock.now(),
      };
      await store.insertClient(client);
      return {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt / 1000),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },

    /** Deletes clients nobody consented to within a day, and codes a day past their expiry. */
    async sweep(): Promise<{ clients: number; codes: number }> {
      const now = clock.now();
      return {
        clients: await store.deleteUnconsentedClients(now - REGISTRATION_LIMITS.unconsentedMs),
        codes: await store.deleteCodesExpiredBefore(now - EXPIRED_CODES_KEPT_MS),
      };
    },
  };
}
