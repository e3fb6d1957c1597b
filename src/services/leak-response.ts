import { createHash } from "node:crypto";
import type { AuditOf } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { hasValidSecretChecksum, type SecretHasher, storedHashesOf } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import type { ApiKeyRecord, ApiKeyStore } from "../store/key-store.js";
import type { LeakReportStore } from "../store/leak-report-store.js";
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

/** A report of the same token at the same URL within this long is answered as before, changing nothing. */
export const LEAK_REPORT_MEMORY_MS = 30 * 24 * 3_600_000;

export interface LeakResponseOptions {
  store: ApiKeyStore;
  /** The reports already processed. */
  reports: LeakReportStore;
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

/** A report's identity: the token and the URL, hashed (the token is a secret, never stored). */
function fingerprintOf(report: LeakReport): string {
  return createHash("sha256").update(`${report.token}\n${report.url}`).digest("hex");
}

/** Whether `token` is the secret a roll replaced, still working in the roll's overlap at `now`. */
function isPreviousSecret(hasher: SecretHasher, token: string, key: ApiKeyRecord, now: number): boolean {
  return (
    key.previousSecretHash !== null &&
    key.previousSecretExpiresAt !== null &&
    key.previousSecretExpiresAt > now &&
    hasher.matches(token, key.previousSecretHash, key.previousSecretScheme)
  );
}

/**
 * What a leak report does (docs/secret-scanning.md): a token with a valid latchkey checksum is hashed
 * the way each stored scheme hashes secrets and looked up; each key it is the secret of (its current
 * one, or the one a roll replaced while the overlap lasts) is disabled (or only flagged), `leaked_at`
 * set the first time, a leaked previous secret stops working at once, and the report recorded in the
 * audit trail with its URL. The change goes through the store's ordinary `changeKey`, so every node
 * refuses the key on its very next request. A token that is not ours, or no longer any key's, is a
 * false positive. The same token at the same URL within 30 days is answered as before and changes
 * nothing: a replayed report cannot disable a key its owner re-enabled.
 */
export function createLeakResponse(options: LeakResponseOptions) {
  const { store, hasher, clock, action } = options;

  async function keysOf(token: string): Promise<ApiKeyRecord[]> {
    if (!hasValidSecretChecksum(token)) return [];
    const candidates = await store.findKeysBySecretHash(storedHashesOf(hasher, token));
    const now = clock.now();
    return candidates.filter(
      (key) =>
        hasher.matches(token, key.secretHash, key.secretScheme) || isPreviousSecret(hasher, token, key, now),
    );
  }

  async function respond(key: ApiKeyRecord, report: LeakReport): Promise<void> {
    const changed = await store.changeKey(
      key.orgId,
      key.id,
      (current) => {
        const now = Math.max(clock.now(), current.updatedAt);
        const previousLeaked = isPreviousSecret(hasher, report.token, current, now);
        return {
          ...current,
          enabled: action === "disable" ? false : current.enabled,
          leakedAt: current.leakedAt ?? now,
          // A leaked previous secret ends its overlap now, whatever the action.
          ...(previousLeaked ? { previousSecretHash: null, previousSecretExpiresAt: null } : {}),
          updatedAt: now,
        };
      },
      leakAudit(clock, key, report),
    );
    if (changed) options.onLeak?.(action === "disable" ? "disabled" : "flagged");
  }

  async function labelOf(report: LeakReport): Promise<LeakLabel["label"]> {
    const fingerprint = fingerprintOf(report);
    const now = clock.now();
    const before = await options.reports.processedLabel(fingerprint, now - LEAK_REPORT_MEMORY_MS);
    if (before === "true_positive" || before === "false_positive") return before;
    const keys = await keysOf(report.token);
    for (const key of keys) await respond(key, report);
    const label = keys.length > 0 ? "true_positive" : "false_positive";
    await options.reports.recordProcessed(fingerprint, label, now);
    return label;
  }

  return {
    /** Acts on every reported token and labels each, in the order received. */
    async report(reports: readonly LeakReport[]): Promise<LeakLabel[]> {
      const labels: LeakLabel[] = [];
      await options.reports.sweep(clock.now() - LEAK_REPORT_MEMORY_MS);
      for (const report of reports) {
        labels.push({ token_raw: report.token, token_type: report.type, label: await labelOf(report) });
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
