import type { AuditOf } from "../domain/audit.js";
import type { CreditAlerts } from "../domain/credit-alerts.js";

/** An organization's plan as stored: null members fall back to the deployment's defaults. */
export interface StoredPlan {
  /** Image credits per billing period, or null for the default. */
  imageCredits: number | null;
  /** Whether overages are on, or null for the default (off). */
  overages: boolean | null;
  /** Anchor of the monthly periods (epoch ms), or null for the organization's creation time. */
  periodAnchor: number | null;
  /** Largest batch, or null for the default (0). */
  maxBatchSize: number | null;
  /** Whether proxies are included, or null for the default (on). */
  proxies: boolean | null;
  /** Whether storage destinations are included, or null for the default (on). */
  storageDestinations: boolean | null;
  /** Percentages of the allowance that send `credits.threshold_reached`, or null for 80 and 100. */
  creditThresholds: number[] | null;
  /** The organization's creation time (epoch ms), the default anchor. */
  organizationCreatedAt: number;
}

/** The settings an operator can change; each present member is written, `null` restores the default. */
export type PlanChanges = Partial<Omit<StoredPlan, "organizationCreatedAt">>;

/** One attempt to consume credits in the billing period that contains the request. */
export interface CreditConsumption {
  orgId: string;
  /** The billing period `[start, end)` the consumption belongs to. */
  periodStart: number;
  periodEnd: number;
  /** Credits the request needs (>= 1). */
  credits: number;
  /** Credits the plan allows per period. */
  allowance: number;
  /** Whether consumption past the allowance is allowed (and recorded). */
  overages: boolean;
  /** Start of the UTC hour of the request, for the usage history. */
  hourStart: number;
  /**
   * The plan's credit alerts: a consumption that crosses one writes its `credits.threshold_reached`
   * event in its own transaction (a consumption that crosses none writes nothing more).
   */
  alerts?: CreditAlerts | undefined;
}

/** What the conditional upsert did: `used` is the period's total after it (before it, when refused). */
export interface CreditResult {
  consumed: boolean;
  used: number;
}

/** A billing period's recorded consumption. */
export interface CreditPeriodRow {
  start: number;
  end: number;
  used: number;
}

/** Plans, credits and the usage history, in the database (never in Redis: credits are money). */
export interface PlanStore {
  /**
   * The organization's plan settings, or undefined when there is no such organization. `seenVersion`:
   * the organization's record version the request is about to confirm (PostgreSQL + Redis record
   * cache, src/cache/version-cached-plans.ts); a plan cached at exactly that version may be served.
   */
  getPlan(orgId: string, seenVersion?: number): Promise<StoredPlan | undefined>;
  /**
   * Writes the given plan settings and records `audit` (the stored plan before and after) in the same
   * transaction. Resolves false, writing nothing, when there is no such organization.
   */
  setPlan(orgId: string, changes: PlanChanges, audit?: AuditOf<StoredPlan>): Promise<boolean>;
  /**
   * Consumes credits with one atomic conditional upsert, and records them in the hourly usage in the
   * same transaction: concurrent consumers at the boundary never exceed the allowance, on any node.
   */
  consumeCredits(consumption: CreditConsumption): Promise<CreditResult>;
  /**
   * Consumes what is left of the allowance and then the organization's credit grants usable at `now`,
   * all or nothing, atomically on any number of nodes (kysely-credit-grants.ts). For a consumption the
   * allowance alone refused.
   */
  consumeWithGrants(consumption: CreditConsumption, now: number): Promise<CreditResult>;
  /** The most recent `limit` billing periods with consumption, oldest first. */
  creditPeriods(orgId: string, limit: number): Promise<CreditPeriodRow[]>;
  /** Hourly consumption from `since` (epoch ms, inclusive), oldest first. */
  usageHours(orgId: string, since: number): Promise<{ hourStart: number; images: number }[]>;
}
