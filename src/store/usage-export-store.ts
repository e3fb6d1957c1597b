/** One organization's decisions in one UTC hour, as a node counted them since its last write. */
export interface DecisionCounts {
  orgId: string;
  /** Start of the UTC hour (epoch ms). */
  hourStart: number;
  allowed: number;
  refused: number;
}

/** An organization as the platform's export names it. */
export interface ExportedOrganization {
  id: string;
  /** The platform's own id of this customer; null: none. */
  externalId: string | null;
}

/** One interval of one organization's usage; only intervals with something recorded exist. */
export interface UsageBucket {
  orgId: string;
  /** Start of the interval (epoch ms): a UTC hour or day. */
  bucketStart: number;
  images: number;
  allowed: number;
  refused: number;
}

/** Which usage to read: `[from, to)` in epoch ms, summed per `bucketMs` (an hour or a day). */
export interface UsageRange {
  from: number;
  to: number;
  bucketMs: number;
}

/** The hourly records behind the usage export (docs/usage-export.md). */
export interface UsageExportStore {
  /** Adds each row's counts to its organization's hour, creating the hour's row when needed. */
  addDecisions(rows: readonly DecisionCounts[]): Promise<void>;
  /** Up to `limit` organizations whose id sorts after `afterId` (all when undefined), in id order. */
  organizationsAfter(afterId: string | undefined, limit: number): Promise<ExportedOrganization[]>;
  /**
   * Images and decisions of `orgIds` within the range, summed per bucket, ordered by organization id
   * then bucket. One short query: a caller reads a few organizations at a time, so no connection is
   * held while a slow client reads the previous ones.
   */
  usageBuckets(orgIds: readonly string[], range: UsageRange): Promise<UsageBucket[]>;
}
