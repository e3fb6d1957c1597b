import type { Clock } from "../domain/clock.js";
import { randomBase62, type SecretHasher } from "../domain/credentials.js";
import { invalidRequest, LatchkeyError, type ValidationIssue } from "../domain/errors.js";
import { creditThresholdsOf, type Plan } from "../domain/plan.js";
import {
  type GroupLimit,
  policiesFromJson,
  policiesProblem,
  sortedPolicies,
} from "../domain/rate-limit-policies.js";
import { requireRfc3339 } from "../domain/rfc3339.js";
import { assertStorableText } from "../domain/text-rules.js";
import type { IdempotentResponse } from "../store/idempotency-store.js";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";
import type {
  OrganizationChanges,
  OrganizationRecord,
  OrganizationStore,
} from "../store/organization-store.js";
import type { PlanChanges } from "../store/plan-store.js";
import { organizationRecordSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";
import { mintOwnerKey } from "./organizations.js";
import type { PlanService } from "./plans.js";

/** A plan as the wire names it; on a full replacement, an omitted member is the default. */
export interface PlanInput {
  image_credits?: number;
  overages?: boolean;
  period_anchor?: string;
  max_batch_size?: number;
  proxies?: boolean;
  storage_destinations?: boolean;
  credit_thresholds?: number[];
}

/** A group's limit as the wire names it. */
export interface GroupLimitInput {
  policies: { quota: number; window_seconds: number }[];
  per?: "organization" | "key";
}

export interface CreateOrganizationInput {
  name: string;
  external_id?: string | null;
  plan?: PlanInput;
  limits?: Record<string, GroupLimitInput>;
  owner_key?: { name?: string | null; description?: string | null };
}

export interface UpdateOrganizationInput {
  name?: string;
  external_id?: string | null;
  disabled?: boolean;
}

/** The organizations of the deployment as the platform manages them (`/v1/admin`, docs/provisioning.md). */
export interface Provisioning {
  /** Creates the organization with its plan, limits and owner key; the key's secret is returned once. */
  create(
    input: CreateOrganizationInput,
    actor: string,
    respond?: (created: CreatedOrganization) => IdempotentResponse,
  ): Promise<CreatedOrganization>;
  list(query: {
    count: number;
    pageStart?: string | undefined;
    namePrefix?: string | undefined;
    externalId?: string | undefined;
  }): Promise<{ organizations: OrganizationRecord[]; nextPageStart: string | null }>;
  /** Throws not_found for an unknown id. */
  get(orgId: string): Promise<OrganizationRecord>;
  update(orgId: string, input: UpdateOrganizationInput, actor: string): Promise<OrganizationRecord>;
  /** The plan as a full replacement: members `input` omits return to their defaults. */
  replacePlan(orgId: string, input: PlanInput, actor: string): Promise<Plan>;
  /** A new owner key for an organization whose owner lost theirs; its secret is returned once. */
  createOwnerKey(
    orgId: string,
    text: { name?: string | null; description?: string | null },
    actor: string,
    respond?: (created: { key: ApiKeyRecord; secret: string }) => IdempotentResponse,
  ): Promise<{ key: ApiKeyRecord; secret: string }>;
}

/** A new organization with its owner key and that key's secret (shown once). */
export interface CreatedOrganization {
  organization: OrganizationRecord;
  key: ApiKeyRecord;
  secret: string;
}

export interface ProvisioningDeps {
  organizations: OrganizationStore;
  keys: KeyStore;
  plans: PlanService;
  hasher: SecretHasher;
  clock: Clock;
  /** The groups the deployment knows now (management groups and the platform's own). */
  knownGroups: () => Promise<ReadonlySet<string>>;
}

const isOrganizationId = (value: string) => /^org_[A-Za-z0-9]{1,64}$/.test(value);

/** Plan changes of a full replacement: every member written, omitted ones as null (the default). */
export function planReplacement(input: PlanInput): PlanChanges {
  return {
    imageCredits: input.image_credits ?? null,
    overages: input.overages ?? null,
    periodAnchor:
      input.period_anchor === undefined ? null : requireRfc3339(input.period_anchor, "/plan/period_anchor"),
    maxBatchSize: input.max_batch_size ?? null,
    proxies: input.proxies ?? null,
    storageDestinations: input.storage_destinations ?? null,
    creditThresholds:
      input.credit_thresholds === undefined
        ? null
        : creditThresholdsOf(input.credit_thresholds, "/plan/credit_thresholds"),
  };
}

/**
 * Each group's limit, checked: the group must be known and its windows distinct (the schema already
 * bounded the numbers). Every problem is reported at once, with its JSON pointer under `path`.
 */
export function parseGroupLimits(
  input: Record<string, GroupLimitInput>,
  isKnownGroup: (group: string) => boolean,
  path: string,
): Record<string, GroupLimit> {
  const issues: ValidationIssue[] = [];
  const limits: Record<string, GroupLimit> = Object.create(null) as Record<string, GroupLimit>;
  for (const [group, limit] of Object.entries(input)) {
    const pointer = `${path}/${group.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (!isKnownGroup(group)) {
      issues.push({
        path: pointer,
        message: `unknown group "${group}": declare it first (PUT /v1/admin/groups/${group})`,
      });
      continue;
    }
    const policies = policiesFromJson(limit.policies);
    const problem = policiesProblem(policies);
    if (problem) issues.push({ path: `${pointer}/policies`, message: problem });
    else {
      limits[group] = { policies: sortedPolicies(policies), per: limit.per ?? "organization" };
    }
  }
  if (issues.length > 0) {
    const message = `Invalid request: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}.`;
    throw new LatchkeyError("invalid_request", message, { validationErrors: issues });
  }
  return limits;
}

export function createProvisioning(deps: ProvisioningDeps): Provisioning {
  const { organizations, clock } = deps;
  const audit = (actor: string, orgId: string, action: "organization.create" | "organization.update") =>
    auditOf<OrganizationRecord>(clock, {
      actor,
      orgId,
      action,
      targetOf: (org) => org.id,
      snapshot: organizationRecordSnapshot,
    });

  async function get(orgId: string): Promise<OrganizationRecord> {
    const found = isOrganizationId(orgId) ? await organizations.getOrganization(orgId) : undefined;
    if (!found) throw new LatchkeyError("not_found", `No organization ${orgId}.`);
    return found;
  }

  return {
    async create(input, actor, respond) {
      assertStorableText(input.name, "/name");
      if (input.name.trim() === "") throw invalidRequest("name must not be blank.", "/name");
      if (typeof input.external_id === "string") assertStorableText(input.external_id, "/external_id");
      if (input.owner_key) assertStorableText(input.owner_key, "/owner_key");
      const plan = input.plan ? planReplacement(input.plan) : {};
      const known = input.limits ? await deps.knownGroups() : new Set<string>();
      const limits = input.limits
        ? parseGroupLimits(input.limits, (group) => known.has(group), "/limits")
        : {};
      const now = clock.now();
      const organization: OrganizationRecord = {
        id: `org_${randomBase62(22)}`,
        name: input.name,
        externalId: input.external_id ?? null,
        disabledAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await organizations.insertOrganization(
        organization,
        { plan, limits },
        audit(actor, organization.id, "organization.create"),
      );
      const { key, secret } = await mintOwnerKey(
        { store: deps.keys, hasher: deps.hasher, clock },
        organization.id,
        actor,
        input.owner_key,
        // The first response is committed with the owner key, the create's last write.
        respond && ((created) => respond({ organization, ...created })),
      );
      return { organization, key, secret };
    },

    async list(query) {
      const after =
        query.pageStart === undefined ? undefined : decodeCursor(query.pageStart, isOrganizationId);
      const page = await organizations.listOrganizations({
        limit: query.count + 1,
        after,
        namePrefix: query.namePrefix,
        externalId: query.externalId,
      });
      const shown = page.slice(0, query.count);
      const last = shown.at(-1);
      return {
        organizations: shown,
        nextPageStart:
          page.length > query.count && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      };
    },

    get,

    async update(orgId, input, actor) {
      await get(orgId);
      if (input.name !== undefined) {
        assertStorableText(input.name, "/name");
        if (input.name.trim() === "") throw invalidRequest("name must not be blank.", "/name");
      }
      if (typeof input.external_id === "string") assertStorableText(input.external_id, "/external_id");
      const changes: OrganizationChanges = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.external_id !== undefined) changes.externalId = input.external_id;
      if (input.disabled !== undefined) changes.disabled = input.disabled;
      const updated = await organizations.updateOrganization(
        orgId,
        changes,
        clock.now(),
        audit(actor, orgId, "organization.update"),
      );
      if (!updated) throw new LatchkeyError("not_found", `No organization ${orgId}.`);
      return updated;
    },

    async replacePlan(orgId, input, actor) {
      await get(orgId);
      return deps.plans.change(orgId, planReplacement(input), actor);
    },

    async createOwnerKey(orgId, text, actor, respond) {
      await get(orgId);
      assertStorableText(text, "");
      return mintOwnerKey({ store: deps.keys, hasher: deps.hasher, clock }, orgId, actor, text, respond);
    },
  };
}
