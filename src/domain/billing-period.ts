/** One monthly billing period: `[start, end)` in epoch milliseconds. */
export interface BillingPeriod {
  start: number;
  end: number;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * The anchor moved by whole calendar months, in UTC. The day is clamped to the month's length, and
 * always computed from the anchor itself (never from the previous period), so an anchor on the 31st
 * gives Jan 31, Feb 28 (29), Mar 31, Apr 30: the day comes back after a short month.
 */
export function addMonths(anchor: number, months: number): number {
  const date = new Date(anchor);
  const totalMonths = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const day = Math.min(date.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(
    year,
    month,
    day,
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  );
}

/** The monthly period anchored at `anchor` that contains `now` (also for a `now` before the anchor). */
export function billingPeriodAt(anchor: number, now: number): BillingPeriod {
  const a = new Date(anchor);
  const n = new Date(now);
  // A first guess from the calendar months between the two, corrected by at most one step either way.
  let months = (n.getUTCFullYear() - a.getUTCFullYear()) * 12 + (n.getUTCMonth() - a.getUTCMonth());
  while (addMonths(anchor, months) > now) months -= 1;
  while (addMonths(anchor, months + 1) <= now) months += 1;
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) };
}

/** The period just before `period` under the same anchor. */
export function previousBillingPeriod(anchor: number, period: BillingPeriod): BillingPeriod {
  return billingPeriodAt(anchor, period.start - 1);
}
