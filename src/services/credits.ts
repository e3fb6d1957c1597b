import { type BillingPeriod, billingPeriodAt } from "../domain/billing-period.js";
import type { Clock } from "../domain/clock.js";
import type { Plan } from "../domain/plan.js";
import type { PlanStore } from "../store/plan-store.js";

const HOUR_MS = 3_600_000;
/** Anchors whose current period is remembered (about one per organization); all are forgotten past it. */
const REMEMBERED_ANCHORS = 10_000;

/**
 * The billing period of an anchor that contains `now`, remembered per anchor while `now` stays inside
 * it: the calendar arithmetic costs about 2 µs, on every metered request. Exact, since exactly one
 * period of an anchor contains any instant, and a clock moved backwards falls outside and recomputes.
 */
function currentPeriods(): (anchor: number, now: number) => BillingPeriod {
  const periods = new Map<number, BillingPeriod>();
  return (anchor, now) => {
    const known = periods.get(anchor);
    if (known && known.start <= now && now < known.end) return known;
    const period = billingPeriodAt(anchor, now);
    if (periods.size >= REMEMBERED_ANCHORS) periods.clear();
    periods.set(anchor, period);
    return period;
  };
}

/** The outcome of consuming image credits: what the `x-renders-*` headers and the 429 report. */
export interface CreditOutcome {
  /** Whether the credits were consumed (always, with overages on). */
  allowed: boolean;
  /** Credits the plan allows per billing period. */
  allowance: number;
  /** Credits this request consumed: the request's credits, or 0 when refused. */
  consumed: number;
  /** Credits requested. */
  requested: number;
  /** Credits used in the current period after this request. */
  used: number;
  /** End of the current billing period (epoch ms), when credits are restored. */
  resetsAt: number;
}

/** Image credits, counted in the database per billing period. */
export interface CreditLedger {
  /** Consumes `credits` in the billing period of now, unless that would pass the plan's allowance. */
  consume(orgId: string, plan: Plan, credits: number): Promise<CreditOutcome>;
}

export function createCreditLedger(store: PlanStore, clock: Clock): CreditLedger {
  const periodAt = currentPeriods();
  return {
    async consume(orgId, plan, credits) {
      const now = clock.now();
      const period = periodAt(plan.periodAnchor, now);
      const consumption = {
        orgId,
        periodStart: period.start,
        periodEnd: period.end,
        credits,
        allowance: plan.imageCredits,
        overages: plan.overages,
        hourStart: Math.floor(now / HOUR_MS) * HOUR_MS,
        // A consumption that crosses one of the plan's thresholds writes its event with itself.
        alerts: { thresholds: plan.creditThresholds, at: now },
      };
      let result = await store.consumeCredits(consumption);
      // Past the allowance, the organization's credit grants (top-ups) are consumed, if it has enough.
      if (!result.consumed) result = await store.consumeWithGrants(consumption, now);
      return {
        allowed: result.consumed,
        allowance: plan.imageCredits,
        consumed: result.consumed ? credits : 0,
        requested: credits,
        used: result.used,
        resetsAt: period.end,
      };
    },
  };
}
