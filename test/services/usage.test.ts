import { expect, onTestFinished, test } from "vitest";
import { fakeClock } from "../helpers/build-test-app.js";
import { platformApp } from "../helpers/platform.js";

const at = (iso: string) => Date.parse(iso);

/** An organization created (and anchored) at `created`, and a way to consume credits at a given time. */
async function organizationSince(created: string) {
  const clock = fakeClock(at(created));
  const platform = await platformApp({ clock });
  const { testApp, owner } = platform;
  await testApp.services.plans.change(owner.orgId, { imageCredits: 1_000 });
  const consumeAt = async (when: string, credits = 1) => {
    clock.set(at(when));
    const decision = await testApp.services.access.decide({
      authorization: owner.headers.authorization,
      permission: "images:create",
      credits,
    });
    expect(decision.allowed).toBe(true);
  };
  const usageAt = async (when: string) => {
    clock.set(at(when));
    const response = await testApp.app.inject({ method: "GET", url: "/v1/usage", headers: owner.headers });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  return { ...platform, clock, consumeAt, usageAt };
}

test("a fresh organization: no buckets, one billing period (the current one, with its scheduled end)", async () => {
  const { usageAt } = await organizationSince("2026-01-31T08:30:00.000Z");
  expect(await usageAt("2026-02-01T00:00:00.000Z")).toEqual({
    data: { hour: {}, day: {}, month: {} },
    per_billing_period: [
      { total_images: 0, start: "2026-01-31T08:30:00.000Z", end: "2026-02-28T08:30:00.000Z" },
    ],
  });
});

test("hour, day and month buckets are UTC interval starts over 72 hours, 60 days and 12 months", async () => {
  // A local time zone 13:45 ahead of UTC must change nothing: every boundary is UTC.
  const zone = process.env.TZ;
  process.env.TZ = "Pacific/Chatham";
  onTestFinished(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  expect(new Date(Date.UTC(2026, 0, 1)).getHours()).not.toBe(0);
  const { consumeAt, usageAt } = await organizationSince("2025-01-15T12:00:00.000Z");
  // Just outside the 12 months (which start on 2025-04-01), then the first instant inside.
  await consumeAt("2025-03-31T23:59:59.999Z");
  await consumeAt("2025-04-01T00:00:00.000Z");
  // Just outside the 60 days (which start on 2026-01-10), then the first instant inside.
  await consumeAt("2026-01-09T23:59:59.999Z");
  await consumeAt("2026-01-10T00:00:00.000Z");
  // Just outside the 72 hours (which start at 2026-03-07T06:00), then the first instant inside.
  await consumeAt("2026-03-07T05:59:59.999Z");
  await consumeAt("2026-03-07T06:00:00.000Z");
  // The current hour, twice (3 credits and 2).
  await consumeAt("2026-03-10T05:01:00.000Z", 3);
  await consumeAt("2026-03-10T05:10:00.000Z", 2);

  const report = await usageAt("2026-03-10T05:30:00.000Z");
  expect(report.data).toEqual({
    hour: { "2026-03-07T06:00:00.000Z": 1, "2026-03-10T05:00:00.000Z": 5 },
    day: {
      "2026-01-10T00:00:00.000Z": 1,
      "2026-03-07T00:00:00.000Z": 2,
      "2026-03-10T00:00:00.000Z": 5,
    },
    month: {
      "2025-04-01T00:00:00.000Z": 1,
      "2026-01-01T00:00:00.000Z": 2,
      "2026-03-01T00:00:00.000Z": 7,
    },
  });
  // Periods run from the 15th at noon: oldest first, the current one last, with its scheduled end.
  expect(report.per_billing_period).toEqual([
    { total_images: 2, start: "2025-03-15T12:00:00.000Z", end: "2025-04-15T12:00:00.000Z" },
    { total_images: 2, start: "2025-12-15T12:00:00.000Z", end: "2026-01-15T12:00:00.000Z" },
    { total_images: 7, start: "2026-02-15T12:00:00.000Z", end: "2026-03-15T12:00:00.000Z" },
  ]);

  // An hour later the oldest hour has left the window; the days and months have not changed.
  const later = await usageAt("2026-03-10T06:00:00.000Z");
  expect(later.data.hour).toEqual({ "2026-03-10T05:00:00.000Z": 5 });
  expect(later.data.day).toEqual(report.data.day);
  expect(later.data.month).toEqual(report.data.month);
});

test("after the period ends, the next one is current (with 0) and the last one is history", async () => {
  const { consumeAt, usageAt } = await organizationSince("2026-01-31T08:30:00.000Z");
  await consumeAt("2026-02-28T08:29:59.999Z", 4);
  const report = await usageAt("2026-02-28T08:30:00.000Z");
  expect(report.per_billing_period).toEqual([
    { total_images: 4, start: "2026-01-31T08:30:00.000Z", end: "2026-02-28T08:30:00.000Z" },
    { total_images: 0, start: "2026-02-28T08:30:00.000Z", end: "2026-03-31T08:30:00.000Z" },
  ]);
  // The hour and the day are those of the consumption, in UTC.
  expect(report.data.hour).toEqual({ "2026-02-28T08:00:00.000Z": 4 });
  expect(report.data.day).toEqual({ "2026-02-28T00:00:00.000Z": 4 });
});

test("at most 12 billing periods: the 11 most recent past ones and the current one", async () => {
  const { consumeAt, usageAt } = await organizationSince("2025-01-01T00:00:00.000Z");
  for (let month = 1; month <= 14; month++) {
    const when = new Date(Date.UTC(2025, month - 1, 10)).toISOString();
    await consumeAt(when, month);
  }
  const report = await usageAt("2026-02-20T00:00:00.000Z");
  const periods = report.per_billing_period as { total_images: number; start: string }[];
  expect(periods).toHaveLength(12);
  expect(periods[0]).toMatchObject({ total_images: 3, start: "2025-03-01T00:00:00.000Z" });
  expect(periods.at(-1)).toMatchObject({ total_images: 14, start: "2026-02-01T00:00:00.000Z" });
  expect(periods.map((p) => p.total_images)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
});
