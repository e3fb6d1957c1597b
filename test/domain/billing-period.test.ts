import { describe, expect, test } from "vitest";
import { addMonths, billingPeriodAt, previousBillingPeriod } from "../../src/domain/billing-period.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const DAY_MS = 86_400_000;

describe("billing periods are calendar months from the anchor, in UTC", () => {
  test("an anchor on the 31st: Jan 31, Feb 28, Mar 31, Apr 30, May 31", () => {
    const anchor = at("2026-01-31T08:30:00.000Z");
    expect([0, 1, 2, 3, 4].map((n) => iso(addMonths(anchor, n)))).toEqual([
      "2026-01-31T08:30:00.000Z",
      "2026-02-28T08:30:00.000Z",
      "2026-03-31T08:30:00.000Z",
      "2026-04-30T08:30:00.000Z",
      "2026-05-31T08:30:00.000Z",
    ]);
  });

  test("a leap year's February has 29 days", () => {
    const anchor = at("2027-12-31T00:00:00.000Z");
    expect(iso(addMonths(anchor, 2))).toBe("2028-02-29T00:00:00.000Z");
    const period = billingPeriodAt(anchor, at("2028-03-15T00:00:00.000Z"));
    expect(iso(period.start)).toBe("2028-02-29T00:00:00.000Z");
    expect(iso(period.end)).toBe("2028-03-31T00:00:00.000Z");
    expect((period.end - period.start) / DAY_MS).toBe(31);
    // An anchor on Feb 29 falls on Feb 28 in the next (common) year and comes back to the 29th after.
    const leap = at("2028-02-29T12:00:00.000Z");
    expect(iso(addMonths(leap, 12))).toBe("2029-02-28T12:00:00.000Z");
    expect(iso(addMonths(leap, 13))).toBe("2029-03-29T12:00:00.000Z");
    expect(iso(addMonths(leap, 48))).toBe("2032-02-29T12:00:00.000Z");
  });

  test("month lengths: the period of February is 28 days, of March 31, of April 30", () => {
    const anchor = at("2026-01-01T00:00:00.000Z");
    const length = (now: string) => {
      const period = billingPeriodAt(anchor, at(now));
      return (period.end - period.start) / DAY_MS;
    };
    expect(length("2026-02-14T00:00:00.000Z")).toBe(28);
    expect(length("2026-03-14T00:00:00.000Z")).toBe(31);
    expect(length("2026-04-14T00:00:00.000Z")).toBe(30);
    expect(length("2028-02-14T00:00:00.000Z")).toBe(29);
  });

  test("the period starts exactly at the anchor instant and ends just before the next one", () => {
    const anchor = at("2026-01-31T08:30:00.000Z");
    const before = billingPeriodAt(anchor, at("2026-02-28T08:29:59.999Z"));
    expect([iso(before.start), iso(before.end)]).toEqual([
      "2026-01-31T08:30:00.000Z",
      "2026-02-28T08:30:00.000Z",
    ]);
    const atBoundary = billingPeriodAt(anchor, at("2026-02-28T08:30:00.000Z"));
    expect([iso(atBoundary.start), iso(atBoundary.end)]).toEqual([
      "2026-02-28T08:30:00.000Z",
      "2026-03-31T08:30:00.000Z",
    ]);
  });

  test("a time before the anchor belongs to the period that ends at the anchor", () => {
    const anchor = at("2026-03-31T00:00:00.000Z");
    const period = billingPeriodAt(anchor, at("2026-03-30T23:59:59.999Z"));
    expect([iso(period.start), iso(period.end)]).toEqual([
      "2026-02-28T00:00:00.000Z",
      "2026-03-31T00:00:00.000Z",
    ]);
    expect(iso(previousBillingPeriod(anchor, period).start)).toBe("2026-01-31T00:00:00.000Z");
  });

  test("over years, the periods of an anchor on the 31st tile time without gap or overlap", () => {
    const anchor = at("2025-10-31T23:00:00.000Z");
    let period = billingPeriodAt(anchor, anchor);
    for (let i = 0; i < 60; i++) {
      const next = billingPeriodAt(anchor, period.end);
      expect(next.start).toBe(period.end);
      const days = (next.end - next.start) / DAY_MS;
      expect(days).toBeGreaterThanOrEqual(28);
      expect(days).toBeLessThanOrEqual(31);
      // Every instant inside a period maps back to it.
      expect(billingPeriodAt(anchor, next.end - 1)).toEqual(next);
      period = next;
    }
    expect(iso(period.start)).toBe("2030-10-31T23:00:00.000Z");
  });
});
