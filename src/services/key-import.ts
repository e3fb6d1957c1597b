import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { newApiId, newKeyId, type SecretHasher } from "../domain/credentials.js";
import { LatchkeyError, type ValidationIssue } from "../domain/errors.js";
import { ImportLine, importLineIssues } from "../domain/import-format.js";
import { DEFAULT_MAX_KEYS, parseKeyConfiguration, withDefaultName } from "../domain/key-configuration.js";
import { expiryOnCreate, parseRequestedExpiry } from "../domain/key-lifecycle.js";
import type { SecretHashing } from "../domain/secret-hashing.js";
import { findTextProblem } from "../domain/text-rules.js";
import { ajvFor } from "../validation/ajv.js";
import { describeIssues } from "../validation/issues.js";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";
import type { SecretHashingStore } from "../store/secret-hashing-store.js";
import { keySnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";
import { agreedSecretHashing } from "./secret-hashing.js";

export interface KeyImportDeps {
  store: KeyStore;
  hasher: SecretHasher;
  clock: Clock;
  /** What the servers recorded of their hashing; the import refuses to hash secrets otherwise. */
  recordedHashing: SecretHashingStore;
  /** How `hasher` hashes (this process's LATCHKEY_SECRET_PEPPER). */
  ownHashing: SecretHashing;
}

/** One key of the file, as stored (or, in a dry run, as it would be). */
export interface ImportedKey {
  /** 1-based line of the file. */
  line: number;
  id: string;
  apiId: string;
  name: string;
  /** `server` for a plaintext secret (hashed here), `sha256` for a hash brought as it was. */
  secretScheme: ApiKeyRecord["secretScheme"];
}

/** Problems listed in one refusal at most; the count says how many there were. */
const LISTED_PROBLEMS = 20;

const validateLine = ajvFor("json").compile<ImportLine>(ImportLine);

type ParsedLine = { line: number; record: ApiKeyRecord };

function problem(line: number, issue: ValidationIssue): ValidationIssue {
  return { path: `line ${line} ${issue.path}`, message: issue.message };
}

/** One line: its record, or what is wrong with it (each problem naming the field). */
function parseLine(
  text: string,
  line: number,
  orgId: string,
  deps: KeyImportDeps,
  peppered: boolean,
  now: number,
  maxLifetimeDays: number | null,
): ParsedLine | ValidationIssue[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [problem(line, { path: "/", message: `is not JSON (${(error as Error).message})` })];
  }
  const unstorable = findTextProblem(value);
  if (unstorable) return [problem(line, unstorable)];
  if (!validateLine(value)) return describeIssues(validateLine.errors ?? []).map((i) => problem(line, i));
  const issues = importLineIssues(value);
  if (value.secret_sha256 !== undefined && peppered) {
    issues.push({
      path: "/secret_sha256",
      message:
        "cannot be imported while the servers hash secrets with LATCHKEY_SECRET_PEPPER: a plain SHA-256 " +
        "would bypass the pepper; import the plaintext secret, or import before configuring a pepper",
    });
  }
  // The same rules as a create over REST: the configuration, and an expiry in the future within the
  // organization's longest key lifetime (which also gives a key without one its expiry).
  const checked = <T>(rule: () => T): T | undefined => {
    try {
      return rule();
    } catch (error) {
      if (!(error instanceof LatchkeyError)) throw error;
      issues.push(...(error.validationErrors ?? [{ path: "/", message: error.message }]));
      return undefined;
    }
  };
  const configuration = checked(() => withDefaultName(parseKeyConfiguration(value), now));
  const expiresAt = checked(() =>
    expiryOnCreate(parseRequestedExpiry(value.expires_at, now), now, maxLifetimeDays),
  );
  if (issues.length > 0 || !configuration || expiresAt === undefined) {
    return issues.map((issue) => problem(line, issue));
  }
  const sha256 = value.secret_sha256?.toLowerCase();
  const record: ApiKeyRecord = {
    ...configuration,
    id: newKeyId(),
    orgId,
    apiId: value.api_id ?? newApiId(),
    secretHash: sha256 ?? deps.hasher.hash(value.secret ?? ""),
    secretScheme: sha256 === undefined ? "server" : "sha256",
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    leakedAt: null,
    expiresAt,
    allowedCidrs: null,
    // An empty object is no metadata, as on a create.
    metadata: value.metadata && Object.keys(value.metadata).length > 0 ? value.metadata : null,
    previousSecretHash: null,
    previousSecretScheme: "server",
    previousSecretExpiresAt: null,
  };
  return { line, record };
}

/**
 * Api_ids and secrets given twice in one file: the second line of each is a problem. Secrets are
 * compared by stored hash, so a plaintext and its own SHA-256 on two lines are caught too (without a
 * pepper the two hash alike; with one, hashes are refused anyway).
 */
function duplicates(parsed: ParsedLine[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const apiIds = new Map<string, number>();
  const secrets = new Map<string, number>();
  for (const { line, record } of parsed) {
    const apiIdLine = apiIds.get(record.apiId);
    if (apiIdLine !== undefined) {
      issues.push(problem(line, { path: "/api_id", message: `repeats the api_id of line ${apiIdLine}` }));
    } else apiIds.set(record.apiId, line);
    const secretLine = secrets.get(record.secretHash);
    const field = record.secretScheme === "sha256" ? "/secret_sha256" : "/secret";
    if (secretLine !== undefined) {
      issues.push(problem(line, { path: field, message: `repeats the secret of line ${secretLine}` }));
    } else secrets.set(record.secretHash, line);
  }
  return issues;
}

/** The line an issue's path names (`line 3 /name`), to list them in the file's order. */
function lineNumber(issue: ValidationIssue): number {
  return Number(/^line (\d+)/.exec(issue.path)?.[1] ?? 0);
}

function refuse(issues: ValidationIssue[]): LatchkeyError {
  const listed = issues.slice(0, LISTED_PROBLEMS).map((issue) => `${issue.path} ${issue.message}`);
  const more = issues.length > LISTED_PROBLEMS ? `; and ${issues.length - LISTED_PROBLEMS} more` : "";
  const count = `${issues.length} problem${issues.length === 1 ? "" : "s"}`;
  return new LatchkeyError(
    "invalid_request",
    `The import file has ${count}, nothing was stored: ${listed.join("; ")}${more}.`,
    { validationErrors: issues },
  );
}

/**
 * `latchkey keys import` (docs/import.md): every line is checked before anything is written, then every
 * key is stored in one transaction, quota-checked and audited as `api_key.import`, or none is. A dry
 * run does all of that and rolls it back, so it finds every problem a real run would.
 */
export async function importKeys(
  deps: KeyImportDeps,
  orgId: string,
  text: string,
  options: { dryRun: boolean },
): Promise<ImportedKey[]> {
  // The servers' hashing, not this process's: a secret hashed otherwise would never authenticate.
  const deployment = await agreedSecretHashing(deps.recordedHashing, deps.ownHashing);
  const peppered = deployment.scheme === "hmac-sha256";
  if (!(await deps.store.findOrganization(orgId))) {
    throw new LatchkeyError("not_found", `No organization ${orgId}.`);
  }
  const now = deps.clock.now();
  const { maxKeyLifetimeDays } = await deps.store.getLimits(orgId);
  const parsed: ParsedLine[] = [];
  const issues: ValidationIssue[] = [];
  text.split("\n").forEach((content, index) => {
    if (content.trim() === "") return;
    const result = parseLine(content, index + 1, orgId, deps, peppered, now, maxKeyLifetimeDays ?? null);
    if (Array.isArray(result)) issues.push(...result);
    else parsed.push(result);
  });
  issues.push(...duplicates(parsed));
  if (issues.length > 0) throw refuse(issues.sort((a, b) => lineNumber(a) - lineNumber(b)));
  if (parsed.length === 0)
    throw refuse([{ path: "file", message: "holds no keys (one JSON object per line)" }]);

  const audit = auditOf<ApiKeyRecord>(deps.clock, {
    actor: OPERATOR_ACTOR,
    orgId,
    action: "api_key.import",
    targetOf: (key) => key.id,
    snapshot: (key) => ({ ...keySnapshot(key), secret_scheme: key.secretScheme }),
  });
  const records = parsed.map((entry) => entry.record);
  const result = await deps.store.importKeys(orgId, records, DEFAULT_MAX_KEYS, {
    audit,
    dryRun: options.dryRun,
  });
  const lineOf = (index: number) => parsed[index]?.line ?? 0;
  switch (result.type) {
    case "quota_exceeded":
      throw new LatchkeyError(
        "key_quota_exceeded",
        `The import needs ${records.length} key slots; organization ${orgId} holds ${result.keyCount} of ` +
          `its quota of ${result.maxKeys} (disabled keys count too). Raise it first: ` +
          `latchkey org limits --org ${orgId} --max-keys <n>.`,
      );
    case "api_id_taken": {
      const taken = new Set(result.apiIds);
      const lines = parsed.filter((entry) => taken.has(entry.record.apiId));
      throw refuse(
        lines.length > 0
          ? lines.map(({ line }) =>
              problem(line, { path: "/api_id", message: "is already the api_id of a stored key" }),
            )
          : [
              {
                path: "/api_id",
                message: "one of the api_ids was taken by another key meanwhile; run the import again",
              },
            ],
      );
    }
    case "secret_taken": {
      const entry = parsed[result.index];
      const field = entry?.record.secretScheme === "sha256" ? "/secret_sha256" : "/secret";
      throw refuse([
        problem(lineOf(result.index), { path: field, message: "is already the secret of a stored key" }),
      ]);
    }
    case "imported":
      return parsed.map(({ line, record }) => ({
        line,
        id: record.id,
        apiId: record.apiId,
        name: record.name,
        secretScheme: record.secretScheme,
      }));
  }
}
