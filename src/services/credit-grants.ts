import type { Clock } from "../domain/clock.js";
import { randomBase62 } from "../domain/credentials.js";
import { invalidRequest } from "../domain/errors.js";
import { requireRfc3339 } from "../domain/rfc3339.js";
import { assertStorableText } from "../domain/text-rules.js";
import type { CreditGrant, CreditGrantStore } from "../store/credit-grant-store.js";
import type { IdempotentResponse } from "../store/idempotency-store.js";
import { creditGrantSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";

/** A grant as the platform sends it. */
export interface CreditGrantInput {
  credits: number;
  expires_at?: string | null;
  reason?: string | null;
}

/** Top-ups of image credits (docs/provisioning.md): consumed after the period's allowance. */
export interface CreditGrants {
  /** Grants `input.credits` to an organization that exists (the caller checked), audited as `actor`. */
  grant(
    orgId: string,
    input: CreditGrantInput,
    actor: string,
    respond?: (grant: CreditGrant) => IdempotentResponse,
  ): Promise<CreditGrant>;
  list(
    orgId: string,
    page: { count: number; pageStart?: string | undefined },
  ): Promise<{ grants: CreditGrant[]; nextPageStart: string | null }>;
}

const isGrantId = (value: string) => /^cgr_[A-Za-z0-9]{1,64}$/.test(value);

export function createCreditGrants(deps: { store: CreditGrantStore; clock: Clock }): CreditGrants {
  const { store, clock } = deps;
  return {
    async grant(orgId, input, actor, respond) {
      const now = clock.now();
      let expiresAt: number | null = null;
      if (typeof input.expires_at === "string") {
        expiresAt = requireRfc3339(input.expires_at, "/expires_at");
        if (expiresAt <= now) throw invalidRequest("expires_at must be in the future.", "/expires_at");
      }
      const reason = typeof input.reason === "string" && input.reason.trim() !== "" ? input.reason : null;
      if (reason !== null) assertStorableText(reason, "/reason");
      const grant: CreditGrant = {
        id: `cgr_${randomBase62(22)}`,
        orgId,
        credits: input.credits,
        remaining: input.credits,
        expiresAt,
        reason,
        createdAt: now,
      };
      await store.insertCreditGrant(
        grant,
        auditOf<CreditGrant>(clock, {
          actor,
          orgId,
          action: "credit_grant.create",
          targetOf: (made) => made.id,
          snapshot: creditGrantSnapshot,
        }),
        respond?.(grant),
      );
      return grant;
    },

    async list(orgId, { count, pageStart }) {
      const after = pageStart === undefined ? undefined : decodeCursor(pageStart, isGrantId);
      const page = await store.listCreditGrants(orgId, { limit: count + 1, after });
      const shown = page.slice(0, count);
      const last = shown.at(-1);
      const more = page.length > count && last;
      return {
        grants: shown,
        nextPageStart: more ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      };
    },
  };
}
