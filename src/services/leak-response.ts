import type { AuditOf } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { hasValidSecretChecksum, type SecretHasher, storedHashesOf } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import type { ApiKeyRecord, ApiKeyStore } from "../store/key-store.js";
import { keySnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/** The actor of leak responses in the audit trail: no key and no operator asked for them. */
export const SECRET_SCANNING_ACTOR = "secret_scanning";

/** One token a secret scanner found in public (GitHub's report format). */
export interface LeakReport {
  /** The string found. */
  token: string;
  /** The scanner's name for its pattern. */
  type: string;
  /** Where it was found. */
  url: string;
  /** What kind of place (`content`, `commit`, `gist`, `npm`, ...). */
  source: string;
}

/** The answer for one token, in GitHub's feedback format. */
export interface LeakLabel {
  token_raw: string;
  token_type: string;
  /** `true_positive`: it is a secret of a key here; `false_positive`: it is not. */
  label: "true_positive" | "false_positive";
}

export interface LeakResponseOptions {
  store: ApiKeyStore;
  hasher: SecretHasher;
  clock: Clock;
  /** LATCHKEY_LEAKED_KEYS: disable the key, or only mark it `leaked_at`. */
  action: "disable" | "flag";
  /** Told of every key a report acted on (the metric). */
  onLeak?: (action: "disabled" | "flagged") => void;
}

/** The audit entry of one report: the key before and after, and where the secret was seen. */
function leakAudit(clock: Clock, key: ApiKeyRecord, report: LeakReport): AuditOf<ApiKeyRecord> {
  const entryOf = auditOf<ApiKeyRecord>(clock, {
    actor: SECRET_SCANNING_ACTOR,
    orgId: key.orgId,
    action: "key.leaked",
    targetOf: (record) => record.id,
    snapshot: keySnapshot,
  });
  return (before, after) => {
    const entry = entryOf(before, after);
    const leak = { url: report.url, source: report.source, type: report.type };
    return { ...entry, after: entry.after && { ...entry.after, leak } };
  };
}

/**
 * What a leak report does (docs/secret-scanning.md): a token with a valid latchkey checksum is hashed
 * the way each stored scheme hashes secrets and looked up; each key it is the secret of is disabled (or
 * only flagged), `leaked_at` set the first time, and the report recorded in the audit trail with its URL.
 * The change goes through the store's ordinary `changeKey`, so every node refuses the key on its very
 * next request. A token that is not ours, or no longer any key's, is a false positive.
 */
export function createLeakResponse(options: LeakResponseOptions) {
  const { store, hasher, clock, action } = options;

  async function keysOf(token: string): Promise<ApiKeyRecord[]> {
    if (!hasValidSecretChecksum(token)) return [];
    const candidates = await store.findKeysBySecretHash(storedHashesOf(hasher, token));
    return candidates.filter((key) => hasher.matches(token, key.secretHash, key.secretScheme));
  }

  async function respond(key: ApiKeyRecord, report: LeakReport): Promise<void> {
    const changed = await store.changeKey(
      key.orgId,
      key.id,
      (current) => {
        const now = Math.max(clock.now(), current.updatedAt);
        return {
          ...current,
          enabled: action === "disable" ? false : current.enabled,
          leakedAt: current.leakedAt ?? now,
          updatedAt: now,
        };
      },
      leakAudit(clock, key, report),
    );
    if (changed) options.onLeak?.(action === "disable" ? "disabled" : "flagged");
  }

  return {
    /** Acts on every reported token and labels each, in the order received. */
    async report(reports: readonly LeakReport[]): Promise<LeakLabel[]> {
      const labels: LeakLabel[] = [];
      for (const report of reports) {
        const keys = await keysOf(report.token);
        for (const key of keys) await respond(key, report);
        labels.push({
          token_raw: report.token,
          token_type: report.type,
          label: keys.length > 0 ? "true_positive" : "false_positive",
        });
      }
      return labels;
    },
  };
}

export type LeakResponse = ReturnType<typeof createLeakResponse>;

/** The refusal of a report whose signature does not verify; the same 401 for every reason but the headers'. */
export function invalidSignature(reason: "missing" | "unknown_key" | "bad_signature"): LatchkeyError {
  const messages = {
    missing:
      "A secret scanning report needs the GITHUB-PUBLIC-KEY-IDENTIFIER and GITHUB-PUBLIC-KEY-SIGNATURE headers.",
    unknown_key:
      "The GITHUB-PUBLIC-KEY-IDENTIFIER names no key of LATCHKEY_SECRET_SCANNING_KEYS; refresh that file from GitHub's public keys.",
    bad_signature: "The GITHUB-PUBLIC-KEY-SIGNATURE does not verify over this body with the key named.",
  };
  return new LatchkeyError("invalid_signature", messages[reason]);
}
