import { createHash, randomUUID } from "node:crypto";
import type { Clock } from "../domain/clock.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyInUse,
  idempotencyKeyReused,
} from "../domain/idempotency.js";
import type { IdempotencyStore, IdempotentResponse } from "../store/idempotency-store.js";
import type { WarningLog } from "../warning-log.js";
import type { ResponseSealer } from "./response-sealer.js";

/** One create, as the route sees it. */
export interface IdempotentRequest {
  orgId: string;
  /** The `Idempotency-Key` header; undefined runs the create as it is. */
  key: string | undefined;
  /** The method and path with its query, e.g. `POST /v1/api-keys`: the same key on another is another request. */
  route: string;
  body: unknown;
  /** Whether the response holds a secret (a key create): then it is kept sealed. */
  secret: boolean;
}

/** Builds the first response to record, given the create's result; called before the create commits. */
export type RecordResponse<T> = (response: T) => IdempotentResponse;

/** The create's response, and whether it is the first one again (a replay). */
export interface IdempotentResult<T> {
  response: T;
  replayed: boolean;
  /** A replay whose secret this server could not keep (no sealing key): its secret members are "". */
  secretWithheld: boolean;
}

export interface IdempotentCreates {
  /**
   * Runs `create` once per organization, `Idempotency-Key`, route and body within the window: a repeat
   * gets the first response; `create` records it with `record`, in its own transaction.
   */
  run<T>(
    request: IdempotentRequest,
    create: (record?: RecordResponse<T>) => Promise<T>,
  ): Promise<IdempotentResult<T>>;
  /** Deletes the rows whose window ended. */
  sweep(): Promise<number>;
  /** Stops the periodic sweep. */
  close(): void;
}

/** JSON with members in code-point order at every depth, so that member order is not a difference. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function fingerprintOf(route: string, body: unknown): string {
  return createHash("sha256")
    .update(`${route}\n${canonicalJson(body)}`)
    .digest("hex");
}

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface IdempotentCreatesOptions {
  store: IdempotencyStore;
  clock: Clock;
  /**
   * Seals responses that hold a secret; a string says why there is none: then such a response is kept
   * without its secret, and a replay answers the record with the secret withheld.
   */
  sealer: ResponseSealer | string;
  log: WarningLog;
}

/**
 * The members that hold a secret in a create's answer: a key's `api_key`, a service token's `token`, a
 * webhook endpoint's signing `secret`.
 */
const SECRET_MEMBERS = new Set(["api_key", "token", "secret"]);

/** The answer with every secret member emptied, kept where no sealing key is configured. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([name, member]) => [
      name,
      SECRET_MEMBERS.has(name) && typeof member === "string" ? "" : withoutSecrets(member),
    ]),
  );
}

/** Marks a kept answer whose secrets were withheld, so it is never taken for a sealed one. */
const WITHHELD = "withheld:";

export function createIdempotentCreates({
  store,
  clock,
  sealer,
  log,
}: IdempotentCreatesOptions): IdempotentCreates {
  // The AES-GCM context: a sealed response opens only for the organization and key it answered.
  const contextOf = (orgId: string, key: string) => `${orgId}\n${key}`;

  function encode(request: IdempotentRequest, key: string, response: unknown): string {
    const json = JSON.stringify(response);
    if (!request.secret) return json;
    if (typeof sealer === "string") return `${WITHHELD}${JSON.stringify(withoutSecrets(response))}`;
    return sealer.seal(json, contextOf(request.orgId, key));
  }

  function decode(request: IdempotentRequest, key: string, body: string): unknown {
    if (!request.secret) return JSON.parse(body);
    if (body.startsWith(WITHHELD)) return JSON.parse(body.slice(WITHHELD.length));
    if (typeof sealer === "string") throw invalidRequest(sealer);
    try {
      return JSON.parse(sealer.open(body, contextOf(request.orgId, key)));
    } catch {
      throw new LatchkeyError(
        "idempotency_key_reused",
        "The first response to this Idempotency-Key can no longer be read (the server's key changed); " +
          "use a new Idempotency-Key.",
      );
    }
  }

  const sweep = async () => store.sweep(clock.now());
  const timer = setInterval(() => {
    sweep().catch((error: unknown) =>
      log.warn({ reason: (error as Error).message }, "idempotency sweep failed; it runs again later"),
    );
  }, SWEEP_INTERVAL_MS);
  timer.unref();

  return {
    async run<T>(request: IdempotentRequest, create: (record?: RecordResponse<T>) => Promise<T>) {
      const { key, orgId } = request;
      if (key === undefined) return { response: await create(), replayed: false, secretWithheld: false };
      const now = clock.now();
      const claim = randomUUID();
      const outcome = await store.claim({
        orgId,
        key,
        fingerprint: fingerprintOf(request.route, request.body),
        claim,
        now,
        claimedUntil: now + IDEMPOTENCY_LEASE_MS,
        expiresAt: now + IDEMPOTENCY_WINDOW_MS,
      });
      if (outcome.type === "reused") throw idempotencyKeyReused();
      if (outcome.type === "in_use") throw idempotencyKeyInUse();
      if (outcome.type === "replay") {
        const secretWithheld = request.secret && outcome.body.startsWith(WITHHELD);
        return { response: decode(request, key, outcome.body) as T, replayed: true, secretWithheld };
      }
      const record: RecordResponse<T> = (response) => ({
        orgId,
        key,
        claim,
        status: 200,
        body: encode(request, key, response),
      });
      try {
        return { response: await create(record), replayed: false, secretWithheld: false };
      } catch (error) {
        // Nothing was created (or the commit's outcome is unknown: then a recorded response stays, as
        // the release only frees a key without one). Best effort: a lost database frees it by the lease.
        await store.release(orgId, key, claim).catch(() => undefined);
        throw error;
      }
    },
    sweep,
    close: () => clearInterval(timer),
  };
}
