import { bucketMs, type ExportRange } from "../domain/usage-export-range.js";
import type { UsageExportStore } from "../store/usage-export-store.js";

/** One interval of one organization's usage, as the export lists it. */
export interface UsageExportRow {
  organizationId: string;
  /** The platform's own id of the organization (null: none); only in the platform's export. */
  externalId?: string | null;
  /** The interval `[start, end)` in epoch ms: a UTC hour or day, clipped to the requested range. */
  start: number;
  end: number;
  /** Image credits consumed. */
  images: number;
  /** Decisions of authorize and forward-auth that allowed and refused the organization's callers. */
  allowed: number;
  refused: number;
}

/** The usage export (docs/usage-export.md): rows read a few organizations at a time, never all at once. */
export interface UsageExport {
  /** One organization's rows, oldest first. */
  organization(orgId: string, range: ExportRange): AsyncGenerator<UsageExportRow>;
  /** Every organization's rows, with its `externalId`: by organization id, then oldest first. */
  platform(range: ExportRange): AsyncGenerator<UsageExportRow>;
}

/** Buckets read per query at most: what one read holds in memory, whatever the export's size. */
const BUCKETS_PER_READ = 4096;
/** Organizations per query when each has few buckets (a day, per day): bounds the `in (...)` list. */
const MAX_ORGANIZATIONS_PER_READ = 500;

export interface UsageExportDeps {
  store: UsageExportStore;
  /** Writes the counts this node holds: the export then includes every decision made before it. */
  flushDecisions: () => Promise<void>;
}

export function createUsageExport({ store, flushDecisions }: UsageExportDeps): UsageExport {
  async function* rowsOf(
    organizations: readonly { id: string; externalId?: string | null }[],
    range: ExportRange,
  ): AsyncGenerator<UsageExportRow> {
    const size = bucketMs(range.granularity);
    const buckets = await store.usageBuckets(
      organizations.map((organization) => organization.id),
      { from: range.from, to: range.to, bucketMs: size },
    );
    const externalIds = new Map(
      organizations.map((organization) => [organization.id, organization.externalId]),
    );
    for (const bucket of buckets) {
      const externalId = externalIds.get(bucket.orgId);
      yield {
        organizationId: bucket.orgId,
        ...(externalId !== undefined ? { externalId } : {}),
        // A day bucket may begin before `from` or end after `to`: the row covers only what was read.
        start: Math.max(bucket.bucketStart, range.from),
        end: Math.min(bucket.bucketStart + size, range.to),
        images: bucket.images,
        allowed: bucket.allowed,
        refused: bucket.refused,
      };
    }
  }

  return {
    async *organization(orgId, range) {
      await flushDecisions();
      // One organization has at most 744 hourly buckets in 31 days: one read.
      yield* rowsOf([{ id: orgId }], range);
    },

    async *platform(range) {
      await flushDecisions();
      const bucketsEach = Math.ceil((range.to - range.from) / bucketMs(range.granularity)) + 1;
      const perRead = Math.max(
        1,
        Math.min(MAX_ORGANIZATIONS_PER_READ, Math.floor(BUCKETS_PER_READ / bucketsEach)),
      );
      let after: string | undefined;
      for (;;) {
        const organizations = await store.organizationsAfter(after, perRead);
        if (organizations.length === 0) return;
        yield* rowsOf(organizations, range);
        after = organizations.at(-1)?.id;
        if (organizations.length < perRead) return;
      }
    },
  };
}
