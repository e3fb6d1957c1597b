import type { IdempotentResponse } from "./idempotency-store.js";
import type { AuditOf } from "../domain/audit.js";
import type { ResourceFamilyName } from "../domain/resource-families.js";
import type { ListPosition } from "./key-store.js";

/** A record of a resource family as stored. */
export interface StoredResource {
  /** Record id, prefixed by family (`prx_`, `dst_`, `ogc_`). */
  id: string;
  /** Organization that owns it. */
  orgId: string;
  /** Family it belongs to. */
  family: ResourceFamilyName;
  /** Display name. */
  name: string;
  /** Whether the record is enabled (inverse of the request's `disabled`). */
  enabled: boolean;
  /** The free-form settings object. */
  settings: Record<string, unknown>;
  /** Epoch milliseconds of creation. */
  createdAt: number;
  /** Epoch milliseconds of the last change. */
  updatedAt: number;
}

/** What an update replaces: everything but identity and creation time. */
export type ResourceChanges = Pick<StoredResource, "name" | "enabled" | "settings" | "updatedAt">;

/** The outcome of an insert that must respect the family's quota. */
export type InsertResourceResult = { type: "created" } | { type: "quota_exceeded"; maxRecords: number };

/** The outcome of a delete: removed now, removed earlier (a repeat), or never there. */
export type DeleteResourceResult = "deleted" | "already_deleted" | "not_found";

/** Addresses one record: the organization and family scope every query. */
export interface ResourceKey {
  orgId: string;
  family: ResourceFamilyName;
  id: string;
}

/**
 * Persistence of the resource families. The quota check and the insert are one atomic step (as for
 * keys), and a delete frees its slot in the same transaction.
 */
export interface ResourceStore {
  /**
   * Inserts unless the organization already holds `maxRecords` records of the family, atomically; `audit`
   * is recorded in the same transaction, only when the record is created, and so is `response`, the
   * first response of a create sent with an `Idempotency-Key`.
   */
  insertResource(
    record: StoredResource,
    maxRecords: number,
    audit?: AuditOf<StoredResource>,
    response?: IdempotentResponse,
  ): Promise<InsertResourceResult>;
  /** Finds a record within its organization and family. */
  findResource(key: ResourceKey): Promise<StoredResource | undefined>;
  /** One page of the family's records, newest first (created_at, then id, descending). */
  listResources(
    orgId: string,
    family: ResourceFamilyName,
    query: { limit: number; after?: ListPosition | undefined },
  ): Promise<StoredResource[]>;
  /**
   * Replaces the record's content and records `audit` (before and after) in the same transaction;
   * resolves undefined, recording nothing, when there is no such record.
   */
  replaceResource(
    key: ResourceKey,
    changes: ResourceChanges,
    audit?: AuditOf<StoredResource>,
  ): Promise<StoredResource | undefined>;
  /**
   * Removes the record and frees its quota slot; remembers the id so a repeated delete is told apart.
   * `audit` (the record before, nothing after) is recorded in the same transaction, only by the removal.
   */
  deleteResource(
    key: ResourceKey,
    deletedAt: number,
    audit?: AuditOf<StoredResource>,
  ): Promise<DeleteResourceResult>;
  /**
   * The organization's AWS external id: `candidate` is stored on the first call, and every later call
   * (on any node) returns the stored one.
   */
  awsExternalId(orgId: string, candidate: string): Promise<string>;
}
