import type { IdempotentResponse } from "../store/idempotency-store.js";
import { assertStorableText } from "../domain/text-rules.js";
import type { AuditAction } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import {
  MAX_RESOURCES_PER_FAMILY,
  RESOURCE_FAMILIES,
  type ResourceFamily,
  type ResourceFamilyName,
} from "../domain/resource-families.js";
import { resolveResourceContent } from "../domain/resource-content.js";
import { isResourceId, newResourceId } from "../domain/resource-ids.js";
import {
  ListResourcesInput,
  ResourceContent,
  type ResourcePage,
  type ResourceRecord,
} from "../domain/resource-schemas.js";
import type { ResourceStore, StoredResource } from "../store/resource-store.js";
import { resourceSnapshot } from "./audit-snapshots.js";
import { actorOf, auditOf } from "./audit-trail.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";
import { validateInput } from "./validate-input.js";

/** Who acts: only the organization matters here (the families have no authority rules). */
export interface ResourceCaller {
  /** Organization the operation acts in. */
  orgId: string;
  /** The calling key's id, which the audit trail records as the actor. */
  id?: string;
  /** The audit trail's actor when no key calls (`operator`). */
  actor?: string;
}

/** The audit trail's name of one record of each family: `proxy.create`, `og_config.delete`, ... */
const AUDIT_NAMES = {
  proxies: "proxy",
  storage_destinations: "storage_destination",
  og_configs: "og_config",
} as const satisfies Record<ResourceFamilyName, string>;

/**
 * The use cases of one resource family, shared by REST and MCP. The adapter has already passed the
 * caller through the one access decision (credentials, permission, plan feature, rate limit) with the
 * family's `operations`; what remains is validation -> lookup -> quota -> effect (docs/authority.md).
 * Every input is validated here against the family's schemas, whichever adapter sent it; results are
 * the wire records (`ResourceRecord`), identical on both protocols.
 */
export interface ResourceService {
  /** The family this service manages. */
  readonly family: ResourceFamily;
  /** One page, newest first, disabled records included; `input` is `{count?, page_start?}`. */
  list(caller: ResourceCaller, input?: unknown): Promise<ResourcePage>;
  /** One record; 404 `not_found` when the organization has no such record of this family. */
  get(caller: ResourceCaller, id: string): Promise<ResourceRecord>;
  /** Creates a record from `{name, disabled?, settings?}`; 409 `resource_quota_exceeded` past the quota. */
  create(
    caller: ResourceCaller,
    content: unknown,
    /** The first response of a create sent with an `Idempotency-Key`, committed with the record. */
    respond?: (created: ResourceRecord) => IdempotentResponse,
  ): Promise<ResourceRecord>;
  /** Replaces the whole content: members left out return to their defaults. */
  update(caller: ResourceCaller, id: string, content: unknown): Promise<ResourceRecord>;
  /** Removes the record; repeating it succeeds; an id that never existed is 404. */
  delete(caller: ResourceCaller, id: string): Promise<void>;
}

export interface ResourceServiceOptions {
  store: ResourceStore;
  clock: Clock;
  /** Records per family and organization; MAX_RESOURCES_PER_FAMILY (1,000) unless a test lowers it. */
  maxRecords?: number;
}

/** The wire record of a stored one. */
export function toResourceRecord(record: StoredResource): ResourceRecord {
  return {
    id: record.id,
    name: record.name,
    enabled: record.enabled,
    settings: record.settings,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}

export function createResourceService(
  family: ResourceFamily,
  options: ResourceServiceOptions,
): ResourceService {
  const { store, clock } = options;
  const maxRecords = options.maxRecords ?? MAX_RESOURCES_PER_FAMILY;
  const isId = (value: string) => isResourceId(family, value);

  function checkId(id: string): void {
    if (typeof id === "string" && isId(id)) return;
    const message = `must be a ${family.singular} id (${family.idPrefix} followed by 22 letters and digits)`;
    throw new LatchkeyError("invalid_request", `Invalid request: /id ${message}.`, {
      validationErrors: [{ path: "/id", message }],
    });
  }

  function notFound(id: string): LatchkeyError {
    return new LatchkeyError(
      "not_found",
      `No ${family.singular} with id "${id}" exists in this organization.`,
    );
  }

  const key = (caller: ResourceCaller, id: string) => ({ orgId: caller.orgId, family: family.name, id });

  /** The audit entry of a change, written by the store in the change's transaction. */
  const audit = (caller: ResourceCaller, operation: "create" | "update" | "delete") =>
    auditOf<StoredResource>(clock, {
      actor: actorOf(caller),
      orgId: caller.orgId,
      action: `${AUDIT_NAMES[family.name]}.${operation}` satisfies AuditAction,
      targetOf: (record) => record.id,
      snapshot: resourceSnapshot,
    });

  return {
    family,

    async list(caller, input = {}) {
      const { count = 10, page_start } = validateInput(ListResourcesInput, input);
      const after = page_start === undefined ? undefined : decodeCursor(page_start, isId);
      const rows = await store.listResources(caller.orgId, family.name, { limit: count + 1, after });
      const page = rows.slice(0, count);
      const last = page[page.length - 1];
      return {
        data: page.map(toResourceRecord),
        pagination: { next_page_start: rows.length > count && last ? encodeCursor(last) : null },
      };
    },

    async get(caller, id) {
      checkId(id);
      const record = await store.findResource(key(caller, id));
      if (!record) throw notFound(id);
      return toResourceRecord(record);
    },

    async create(caller, content, respond) {
      assertStorableText(content);
      const resolved = resolveResourceContent(validateInput(ResourceContent, content));
      const now = clock.now();
      const record: StoredResource = {
        ...resolved,
        id: newResourceId(family),
        orgId: caller.orgId,
        family: family.name,
        createdAt: now,
        updatedAt: now,
      };
      const created = toResourceRecord(record);
      const result = await store.insertResource(
        record,
        maxRecords,
        audit(caller, "create"),
        respond?.(created),
      );
      if (result.type === "quota_exceeded") {
        throw new LatchkeyError(
          "resource_quota_exceeded",
          `This organization already has ${result.maxRecords} ${family.plural}, the most it may have. ` +
            `Delete one to make room, or contact support for a higher quota.`,
        );
      }
      return created;
    },

    async update(caller, id, content) {
      // Validation before lookup (the order of checks, docs/authority.md): a bad body is 400 even for an unknown id.
      checkId(id);
      assertStorableText(content);
      const resolved = resolveResourceContent(validateInput(ResourceContent, content));
      const replaced = await store.replaceResource(
        key(caller, id),
        { ...resolved, updatedAt: clock.now() },
        audit(caller, "update"),
      );
      if (!replaced) throw notFound(id);
      return toResourceRecord(replaced);
    },

    async delete(caller, id) {
      checkId(id);
      const outcome = await store.deleteResource(key(caller, id), clock.now(), audit(caller, "delete"));
      if (outcome === "not_found") throw notFound(id);
    },
  };
}

/** One service per family, by family name: what `Services.resources` holds. */
export type ResourceServices = Readonly<Record<ResourceFamilyName, ResourceService>>;

export function createResourceServices(options: ResourceServiceOptions): ResourceServices {
  const entries = RESOURCE_FAMILIES.map((family) => [family.name, createResourceService(family, options)]);
  return Object.freeze(Object.fromEntries(entries)) as ResourceServices;
}
