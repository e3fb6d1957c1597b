import type { BlockList } from "node:net";
import { clientAddress, type ClientOrigin } from "../domain/client-address.js";
import type { SecretHasher } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import { ipNotAllowed, networksAllow } from "../domain/networks.js";
import { grantAllows, type Permission } from "../domain/permissions.js";
import { type Plan, planFeatureOf, planLimitMessage, planRestrictedMessage } from "../domain/plan.js";
import { rateLimitMessage } from "../domain/rate-limit-groups.js";
import type { ManagementDecision, ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import type { ApiKeyRecord, ApiKeyStore } from "../store/key-store.js";
import type { CachedPremise, CallerCache } from "../cache/coherence.js";
import { authenticate, credentialVerdict, parseBasicCredentials } from "./authenticate.js";
import type { CreditLedger, CreditOutcome } from "./credits.js";
import type { LastUseRecorder } from "./last-use.js";
import { missingPermission } from "./operations.js";
import type { PlanService } from "./plans.js";
import type { RefusedCredentials } from "./refused-credentials.js";

/** What a caller wants to do: the question REST, MCP, authorize and forward-auth all ask. */
export interface AccessRequest {
  /** The `Authorization` header the caller sent, verbatim; null, undefined or "" when it sent none. */
  authorization: string | null | undefined;
  /** The permission the operation needs. */
  permission: Permission;
  /** The group it counts against, if any: a management group or one of the platform's. */
  group?: string | undefined;
  /** Slots it takes in each window of its group (1 to 1,000; default 1). */
  cost?: number | undefined;
  /** Image credits it consumes, if any (a whole number >= 1). */
  credits?: number | undefined;
  /** Where the request came from, for keys limited to networks; absent: from nowhere known. */
  client?: ClientOrigin | undefined;
  /**
   * What the request was let in on from a cache only Redis can confirm (the platform service's token):
   * confirmed in the decision's own Redis call, else read from the database, before anything is
   * consumed and before the decision is returned (its `recheck` throws when it no longer holds).
   */
  premise?: CachedPremise | undefined;
}

/** A decision's premise until a Redis call or the database confirmed it; then `pending` is undefined. */
interface PremiseState {
  pending: CachedPremise | undefined;
}

/** Confirms a premise no Redis call could: from the database (throws when it no longer holds). */
async function settle(state: PremiseState): Promise<void> {
  const premise = state.pending;
  if (!premise) return;
  state.pending = undefined;
  await premise.recheck();
}

interface DecisionParts {
  /** The authenticated key; null when authentication failed. */
  caller: ApiKeyRecord | null;
  /** The group's rate-limit outcome, when a group was asked for and the check was reached. */
  rateLimit: ManagementDecision | null;
  /** The credit outcome, when credits were asked for and the check was reached. */
  credits: CreditOutcome | null;
}

/** The answer: allowed with the caller, or refused with the error to relay. */
export type AccessDecision = DecisionParts &
  ({ allowed: true; caller: ApiKeyRecord; error: null } | { allowed: false; error: LatchkeyError });

/** The one access decision (docs/authority.md and docs/platform.md). Nothing else checks credentials or limits. */
export interface AccessControl {
  /** Every check, credentials first. */
  decide(request: AccessRequest): Promise<AccessDecision>;
  /**
   * The credentials step alone: the calling key, or the 401 to send. MCP runs it once per HTTP
   * request, before any MCP message is read, then asks `decideFor` per tool call.
   */
  authenticate(
    authorization: string | null | undefined,
    client?: ClientOrigin,
  ): Promise<ApiKeyRecord | LatchkeyError>;
  /** Every step after credentials, for a caller `authenticate` already accepted. */
  decideFor(caller: ApiKeyRecord, request: Omit<AccessRequest, "authorization">): Promise<AccessDecision>;
}

export interface AccessControlDeps {
  keys: ApiKeyStore;
  hasher: SecretHasher;
  rateLimit: ManagementRateLimit;
  plans: PlanService;
  credits: CreditLedger;
  /** Notes each successful authentication (keys' `last_used_at`); never waits, never throws. */
  lastUse?: LastUseRecorder;
  /**
   * Callers' keys a cache holds but only the limiter can confirm (src/cache/README.md); absent where
   * the key store's reads are exact by themselves or nothing is cached.
   */
  callers?: CallerCache;
  /** Logs refused credentials (401) at `warn`, rate-limited per api_id. */
  refusals?: RefusedCredentials;
  /** Proxies whose `X-Forwarded-For` is believed (LATCHKEY_TRUSTED_PROXIES); absent: none. */
  trustedProxies?: BlockList | undefined;
  /** The time of each decision (expiry, a rolled secret's overlap); the system clock when absent. */
  now?: () => number;
  /** Told of keys refused because they expired, to record it once (services/expiry-recorder.ts). */
  onExpired?: (key: ApiKeyRecord) => void;
  /** Told of each rate-limit refusal (the `rate_limit.exhausted` webhook); never waits, never throws. */
  onRateLimited?: (orgId: string, refusal: { group: string; quota: number; windowSeconds: number }) => void;
}

/**
 * Checks, in this order, and stops at the first refusal: credentials (401) -> the key's networks (403
 * `ip_not_allowed`, part of the credentials step: a key used from elsewhere is no credential) -> permission (403
 * `missing_permission`) -> plan feature (403 `plan_restricted`) -> group rate limit (429
 * `rate_limited`, or 503 `rate_limiter_unavailable` under the `refuse` outage policy; the slot is
 * taken when admitted) -> credits (429 `plan_limit_exceeded`; consumed only
 * when allowed). The plan is read only when a credit or a plan-gated family is involved.
 */
export function createAccessControl(deps: AccessControlDeps): AccessControl {
  const { keys, hasher, rateLimit, plans, credits: ledger } = deps;
  const now = deps.now ?? Date.now;

  /** Whether the key may be used from where the request came (always, for a key without networks). */
  const fromAllowedNetwork = (key: ApiKeyRecord, client: ClientOrigin | undefined) =>
    key.allowedCidrs === null ||
    networksAllow(key.allowedCidrs, client && clientAddress(client, deps.trustedProxies));

  async function authenticated(
    authorization: string | null | undefined,
    client?: ClientOrigin,
  ): Promise<ApiKeyRecord | LatchkeyError> {
    try {
      const caller = await authenticate(authorization ?? undefined, keys, hasher, {
        now: now(),
        onExpired: deps.onExpired,
      });
      if (!fromAllowedNetwork(caller, client)) {
        const seen = client && clientAddress(client, deps.trustedProxies);
        return ipNotAllowed(seen, client?.missing ?? "the request came from no known address");
      }
      deps.lastUse?.touch(caller);
      return caller;
    } catch (error) {
      if (error instanceof LatchkeyError) {
        if (error.code === "unauthorized") deps.refusals?.note(authorization);
        return error;
      }
      throw error;
    }
  }

  /**
   * `expected`: the record version `caller` was cached at, for the limiter to confirm. Undefined when
   * the cached caller cannot be decided on (only ever with `expected`): the cache then decides again
   * on the database's key. `state`: the request's premise, confirmed in the same Redis call.
   */
  async function decideChecked(
    caller: ApiKeyRecord,
    request: Omit<AccessRequest, "authorization">,
    expected: number | undefined,
    state: PremiseState,
  ): Promise<AccessDecision | undefined> {
    const refuse = (error: LatchkeyError, parts: Partial<DecisionParts> = {}): AccessDecision => ({
      allowed: false,
      error,
      caller,
      rateLimit: null,
      credits: null,
      ...parts,
    });
    if (!grantAllows(caller, request.permission)) return refuse(missingPermission(request.permission));

    const feature = planFeatureOf(request.permission);
    let plan: Plan | undefined;
    // On a cached caller, a plan cached at the same record version: the check below confirms both.
    if (feature || request.credits) plan = await plans.get(caller.orgId, expected);
    if (feature && plan && !plan[feature]) {
      // A cached key may have been disabled since: 401 must win over 403, so decide on the stored key.
      if (expected !== undefined) return undefined;
      return refuse(new LatchkeyError("plan_restricted", planRestrictedMessage(feature)));
    }

    let limit: ManagementDecision | null = null;
    const premise = state.pending?.check;
    if (!request.group && deps.callers) {
      // No limiter call to carry the record version: the cache's own call (one Redis round trip)
      // confirms a cached key and premise, or, not waited for, observes the version so the key's next
      // read is cached.
      if (expected === undefined && !premise) void deps.callers.confirm(caller.orgId, undefined);
      else if (await deps.callers.confirm(caller.orgId, expected, premise)) state.pending = undefined;
      else {
        // Which of the two failed is not said: the premise is read from the database, the key too.
        await settle(state);
        if (expected !== undefined) return undefined;
      }
    } else if (request.group) {
      let answer: Awaited<ReturnType<ManagementRateLimit["consumeExpecting"]>>;
      const count = { key: caller, cost: request.cost, ...(premise ? { premise } : {}) };
      try {
        answer =
          expected === undefined && !premise
            ? await rateLimit.consume(caller.orgId, request.group, count)
            : await rateLimit.consumeExpecting(caller.orgId, request.group, expected, count);
      } catch (error) {
        // The shared limiter is away and the deployment refuses meanwhile: this request's answer.
        if (error instanceof LatchkeyError && error.code === "rate_limiter_unavailable") return refuse(error);
        throw error;
      }
      if (answer.type === "stale") {
        // Nothing was counted. A premise is read from the database; a key just read needs no second
        // read. A cached caller's version no longer current: the cache decides on the database's key.
        await settle(state);
        return expected === undefined ? decideChecked(caller, request, undefined, state) : undefined;
      }
      state.pending = undefined;
      limit = answer;
      if (limit.type === "deny") {
        const message = rateLimitMessage(limit.group, limit.quota, limit.windowSeconds, limit.per);
        const error = new LatchkeyError("rate_limited", message, {
          retryAfterSeconds: limit.retryAfterSeconds,
        });
        deps.onRateLimited?.(caller.orgId, limit);
        return refuse(error, { rateLimit: limit });
      }
    }

    let outcome: CreditOutcome | null = null;
    if (request.credits && plan) {
      // Never consumed on a premise nothing confirmed (no limiter call, or one that could not say).
      await settle(state);
      outcome = await ledger.consume(caller.orgId, plan, request.credits);
      if (!outcome.allowed) {
        const message = planLimitMessage(
          outcome.used,
          outcome.allowance,
          outcome.requested,
          outcome.resetsAt,
        );
        return refuse(new LatchkeyError("plan_limit_exceeded", message), {
          rateLimit: limit,
          credits: outcome,
        });
      }
    }
    return { allowed: true, error: null, caller, rateLimit: limit, credits: outcome };
  }

  const decideFor = (caller: ApiKeyRecord, request: Omit<AccessRequest, "authorization">) =>
    decideChecked(caller, request, undefined, { pending: undefined }) as Promise<AccessDecision>;

  /** The decision on the key read from the database (every check, credentials first). */
  async function decideOnStoredKey(request: AccessRequest, state: PremiseState): Promise<AccessDecision> {
    const caller = await authenticated(request.authorization, request.client);
    if (caller instanceof LatchkeyError) {
      return { allowed: false, error: caller, caller: null, rateLimit: null, credits: null };
    }
    return decideChecked(caller, request, undefined, state) as Promise<AccessDecision>;
  }

  /**
   * The decision on the caller's cached key, when the cache holds one (`CallerCache.decide`): the
   * limiter confirms the key's record version in the same call that counts the request (or, for a
   * request of no group, the cache's own `confirm` does, before anything is consumed), so the key is
   * exact at that moment. Only an admission, or a refusal by the limiter or credits, is decided this
   * way; a refusal before the limiter (disabled, missing permission, plan) might come from a key
   * changed since, so those, like an unconfirmed version, are left to the database's key.
   */
  function decideOnCachedKey(
    callers: CallerCache,
    request: AccessRequest,
    state: PremiseState,
  ): Promise<AccessDecision> | undefined {
    const credentials = parseBasicCredentials(request.authorization ?? undefined);
    if (!credentials) return undefined;
    const fresh = () => decideOnStoredKey(request, state);
    return callers.decide(
      credentials.apiId,
      async ({ key, version }) => {
        const verdict = credentialVerdict(key, credentials.secret, now(), hasher);
        // A secret changes only by a roll, which moves the version: a mismatch goes the ordinary way
        // (to its 401, or to the key read again after a roll), entry kept.
        if (verdict === "wrong_secret") return fresh();
        if (
          verdict !== "accepted" ||
          !fromAllowedNetwork(key, request.client) ||
          !grantAllows(key, request.permission)
        ) {
          return undefined;
        }
        const decision = await decideChecked(key, request, version, state);
        if (decision) deps.lastUse?.touch(key);
        return decision;
      },
      fresh,
    );
  }

  return {
    async decide(request) {
      const state: PremiseState = { pending: request.premise };
      const decision = await ((deps.callers && decideOnCachedKey(deps.callers, request, state)) ??
        decideOnStoredKey(request, state));
      // A decision made without a Redis call that confirmed the premise (a refusal before the limiter)
      // is returned only once the database has.
      await settle(state);
      return decision;
    },
    authenticate: authenticated,
    decideFor,
  };
}
