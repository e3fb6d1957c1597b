import { billingPeriodAt } from "../domain/billing-period.js";
import type { Clock } from "../domain/clock.js";
import type { PlanStore } from "../store/plan-store.js";
import type { PlanService } from "./plans.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How much history `GET /v1/usage` shows (docs/plans-and-usage.md). */
const HOURS_SHOWN = 72;
const DAYS_SHOWN = 60;
const MONTHS_SHOWN = 12;
const PERIODS_SHOWN = 12;

/** Images consumed per interval (keys: RFC 3339 UTC start of the interval; empty intervals omitted). */
export interface UsageReport {
  hour: Record<string, number>;
  day: Record<string, number>;
  month: Record<string, number>;
  /** Billing periods, oldest first; the current one last, with its scheduled end. */
  perBillingPeriod: { totalImages: number; start: number; end: number }[];
}

/** The current billing period at a glance: what MCP's `check_usage` answers. */
export interface PeriodUsage {
  /** Image credits consumed in the current billing period. */
  used: number;
  /** Image credits the plan allows per period. */
  allowed: number;
  /** Whether consumption past the allowance is allowed (and recorded). */
  overages: boolean;
  /** End of the current period (epoch ms), when credits are restored. */
  resetsAt: number;
}

export interface UsageService {
  report(orgId: string): Promise<UsageReport>;
  /** The current billing period's consumption against the plan. */
  currentPeriod(orgId: string): Promise<PeriodUsage>;
}

function add(buckets: Record<string, number>, start: number, images: number): void {
  const key = new Date(start).toISOString();
  buckets[key] = (buckets[key] ?? 0) + images;
}

export function createUsageService(deps: {
  store: PlanStore;
  plans: PlanService;
  clock: Clock;
}): UsageService {
  const { store, plans, clock } = deps;
  return {
    async report(orgId) {
      const now = clock.now();
      const today = new Date(now);
      const hourSince = Math.floor(now / HOUR_MS) * HOUR_MS - (HOURS_SHOWN - 1) * HOUR_MS;
      const daySince =
        Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - (DAYS_SHOWN - 1) * DAY_MS;
      const monthSince = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (MONTHS_SHOWN - 1), 1);
      const plan = await plans.get(orgId);
      const [hours, periods] = await Promise.all([
        store.usageHours(orgId, Math.min(hourSince, daySince, monthSince)),
        store.creditPeriods(orgId, PERIODS_SHOWN),
      ]);
      const report: UsageReport = { hour: {}, day: {}, month: {}, perBillingPeriod: [] };
      for (const { hourStart, images } of hours) {
        const at = new Date(hourStart);
        if (hourStart >= hourSince) add(report.hour, hourStart, images);
        if (hourStart >= daySince)
          add(report.day, Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()), images);
        if (hourStart >= monthSince)
          add(report.month, Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1), images);
      }
      const current = billingPeriodAt(plan.periodAnchor, now);
      const past = periods.filter((period) => period.start < current.start);
      const currentUsed = periods.find((period) => period.start === current.start)?.used ?? 0;
      report.perBillingPeriod = [
        ...past.slice(-(PERIODS_SHOWN - 1)).map((p) => ({ totalImages: p.used, start: p.start, end: p.end })),
        { totalImages: currentUsed, start: current.start, end: current.end },
      ];
      return report;
    },
    async currentPeriod(orgId) {
      const plan = await plans.get(orgId);
      const current = billingPeriodAt(plan.periodAnchor, clock.now());
      // Only periods with consumption are stored, so the current one, when present, is the newest.
      const [latest] = await store.creditPeriods(orgId, 1);
      const used = latest?.start === current.start ? latest.used : 0;
      return { used, allowed: plan.imageCredits, overages: plan.overages, resetsAt: current.end };
    },
  };
}
