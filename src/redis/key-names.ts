/**
 * The one place that names Redis keys. Every key of one organization carries the hash tag
 * `{<org id>}`, so that on Redis Cluster all of them hash to one slot and every script (a decision
 * with its record version, a write's version bump) touches one slot on one master. Keys that belong
 * to the deployment rather than to an organization (console sign-in and action limits) carry the tag
 * `{latchkey}`. The prefix (LATCHKEY_REDIS_PREFIX) comes first, so deployments sharing one Redis stay
 * apart; it holds no brace, so the first `{...}` of a key is always its tag.
 *
 * The tags are the same on every topology, so a deployment moves from one Redis to a cluster by
 * changing LATCHKEY_REDIS_URL alone (docs/several-nodes.md says what the rename meant on upgrade).
 */

/** The hash tag of deployment-wide keys. */
export const DEPLOYMENT_TAG = "latchkey";

/** Names of one organization's keys, all in the slot of `{<org id>}`. */
export interface OrganizationKeys {
  /** The sliding log of one rate-limit group (a sorted set of admissions). */
  bucket(group: string): string;
  /** The sliding log of one key's own count of a group counted per key (`"per": "key"`). */
  keyBucket(keyId: string, group: string): string;
  /** The organization's record version (src/cache/redis-record-versions.ts). */
  readonly version: string;
  /** Its count of record writes in progress. */
  readonly writing: string;
}

/** Every key of organization `orgId`, under `prefix`. */
export function organizationKeys(prefix: string, orgId: string): OrganizationKeys {
  const base = `${prefix}:{${orgId}}`;
  return {
    bucket: (group) => `${base}:rl:${group}`,
    // Apart from `rl:`, so no group name can ever name a key's log.
    keyBucket: (keyId, group) => `${base}:rk:${keyId}:${group}`,
    version: `${base}:records:version`,
    writing: `${base}:records:writing`,
  };
}

/**
 * The record version of the deployment's service tokens and its count of writes in progress
 * (src/cache/version-cached-service-tokens.ts): one pair for every token, in the slot of `{latchkey}`.
 */
export function serviceTokenVersionKeys(prefix: string): { version: string; writing: string } {
  const base = `${prefix}:{${DEPLOYMENT_TAG}}:service-tokens`;
  return { version: `${base}:version`, writing: `${base}:writing` };
}

/** A deployment-wide sliding log (console sign-in and action limits): `kind` and its subject `id`. */
export function deploymentBucket(prefix: string, kind: string, id: string): string {
  return `${prefix}:{${DEPLOYMENT_TAG}}:console:${kind}:${id}`;
}
