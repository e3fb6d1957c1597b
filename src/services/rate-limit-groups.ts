import type { Clock } from "../domain/clock.js";
import { invalidRequest } from "../domain/errors.js";
import { groupDeclarationProblem, isGroupName, managementGroupLimit } from "../domain/group-definitions.js";
import type { GroupLimit } from "../domain/rate-limit-policies.js";
import { isRateLimitGroup, RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import type { DeclaredGroup, RateLimitGroupStore } from "../store/rate-limit-group-store.js";
import { auditOf } from "./audit-trail.js";

/**
 * Every group a decision may name (docs/rate-limits.md): the management groups, the `LATCHKEY_GROUPS`
 * file's and those declared through the admin API. Declared groups are read from the database at most
 * once a second per node, so a new or changed group applies everywhere within 2 seconds.
 */
export interface GroupCatalog {
  /** The group's own limit (before any organization's override); undefined for an unknown group. */
  limitOf(group: string): Promise<GroupLimit | undefined>;
  /** Throws a 400 naming the group, at `path`, unless the deployment knows it. */
  assertKnown(group: string, path: string): Promise<void>;
  /** Every known group and its own limit, management groups first. */
  all(): Promise<Record<string, GroupLimit>>;
  /** Declares (or redefines) a platform group, audited as `actor`. */
  put(name: string, limit: GroupLimit, actor: string): Promise<DeclaredGroup>;
}

const DECLARED_TTL_MS = 1000;

export function createGroupCatalog(deps: {
  store: RateLimitGroupStore;
  fileGroups: Readonly<Record<string, GroupLimit>>;
  windowSeconds: number;
  clock: Clock;
}): GroupCatalog {
  const { store, fileGroups, windowSeconds, clock } = deps;
  let declared: { groups: Promise<Map<string, GroupLimit>>; at: number } | undefined;

  function declaredGroups(): Promise<Map<string, GroupLimit>> {
    const now = clock.now();
    if (declared && now - declared.at < DECLARED_TTL_MS && now >= declared.at) return declared.groups;
    const groups = store.listGroups().then((list) => new Map(list.map((group) => [group.name, group])));
    declared = { groups, at: now };
    groups.catch(() => (declared = undefined));
    return groups;
  }

  async function limitOf(group: string): Promise<GroupLimit | undefined> {
    const management = managementGroupLimit(group, windowSeconds);
    if (management) return management;
    return (await declaredGroups()).get(group) ?? fileGroups[group];
  }

  return {
    limitOf,
    async assertKnown(group, path) {
      if (isGroupName(group) && (await limitOf(group))) return;
      throw invalidRequest(
        `group "${group}" is not a known group: one of ${RATE_LIMIT_GROUPS.join(", ")}, or a group of the ` +
          `platform's (LATCHKEY_GROUPS, PUT /v1/admin/groups/{group}).`,
        path,
      );
    },
    async all() {
      const groups: Record<string, GroupLimit> = {};
      for (const group of RATE_LIMIT_GROUPS)
        groups[group] = managementGroupLimit(group, windowSeconds) as GroupLimit;
      for (const [name, limit] of Object.entries(fileGroups)) groups[name] = limit;
      for (const [name, limit] of await declaredGroups()) groups[name] = limit;
      return groups;
    },
    async put(name, limit, actor) {
      const problem = groupDeclarationProblem(name, limit);
      if (problem)
        throw invalidRequest(
          `Invalid group: ${problem}.`,
          isRateLimitGroup(name) || !isGroupName(name) ? "/group" : "/policies",
        );
      const group: DeclaredGroup = { name, policies: limit.policies, per: limit.per };
      await store.putGroup(
        group,
        clock.now(),
        auditOf<DeclaredGroup>(clock, {
          actor,
          orgId: null,
          action: "rate_limit_group.update",
          targetOf: (g) => g.name,
          snapshot: (g) => ({
            name: g.name,
            policies: g.policies.map((p) => ({ quota: p.quota, window_seconds: p.windowSeconds })),
            per: g.per,
          }),
        }),
      );
      declared = undefined;
      return group;
    },
  };
}
