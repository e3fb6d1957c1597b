import type { WebhookEvent } from "./webhook-events.js";

/** What a consumption needs to write its `credits.threshold_reached` events in its own transaction. */
export interface CreditAlerts {
  /** The plan's percentages of the allowance (`credit_thresholds`). */
  thresholds: readonly number[];
  /** The time of the request (epoch ms): the events' `timestamp`. */
  at: number;
}

/** A threshold in credits: the percentage of the allowance, rounded up (80% of 10 is 8, of 11 is 9). */
export interface ThresholdMark {
  percent: number;
  credits: number;
}

export function thresholdMarks(allowance: number, percents: readonly number[]): ThresholdMark[] {
  if (allowance <= 0) return [];
  return percents.map((percent) => ({ percent, credits: Math.ceil((allowance * percent) / 100) }));
}

/**
 * The percentages a consumption crossed: the period's total went from below a mark to at or past it.
 * Totals only grow within a period and each consumption is serialized on the period's row, so exactly
 * one consumption crosses each mark, on every node.
 */
export function crossedThresholds(marks: readonly ThresholdMark[], before: number, after: number): number[] {
  return marks.filter((mark) => before < mark.credits && after >= mark.credits).map((mark) => mark.percent);
}

/** The dedupe key of a threshold's event: one per organization, period and percentage. */
export function thresholdDedupeKey(orgId: string, periodEnd: number, percent: number): string {
  return `credits.threshold_reached:${orgId}:${periodEnd}:${percent}`;
}

/**
 * The event's `data` without `used` (PostgreSQL adds it inside the consuming statement); the shape of
 * docs/webhooks.md.
 */
export function thresholdData(
  orgId: string,
  percent: number,
  allowance: number,
  periodEnd: number,
): Record<string, unknown> {
  return {
    organization_id: orgId,
    threshold: percent,
    allowance,
    period_end: new Date(periodEnd).toISOString(),
  };
}

/** `credits.threshold_reached` of a consumption that brought the period's total to `used`. */
export function thresholdEvent(
  c: { orgId: string; allowance: number; periodEnd: number },
  percent: number,
  used: number,
  at: number,
): WebhookEvent & { orgId: string; dedupeKey: string } {
  return {
    type: "credits.threshold_reached",
    orgId: c.orgId,
    at,
    data: { ...thresholdData(c.orgId, percent, c.allowance, c.periodEnd), used },
    dedupeKey: thresholdDedupeKey(c.orgId, c.periodEnd, percent),
  };
}
