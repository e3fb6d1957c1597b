import fc from "fast-check";
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { perKey, TalliedCounter, TalliedHistogram } from "../../src/metrics/tallies.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];
const labelNames = ["route", "status"] as const;

/** The same metrics twice: prom-client's own, and the tallied ones, each in its own registry. */
function pair() {
  const plain = new Registry();
  const tallied = new Registry();
  const config = { name: "requests_total", help: "Requests.", labelNames };
  const histogramConfig = { name: "duration_seconds", help: "Duration.", labelNames, buckets: BUCKETS };
  return {
    plain,
    tallied,
    plainCounter: new Counter({ ...config, registers: [plain] }),
    talliedCounter: new TalliedCounter({ ...config, registers: [tallied] }),
    plainHistogram: new Histogram({ ...histogramConfig, registers: [plain] }),
    talliedHistogram: new TalliedHistogram({ ...histogramConfig, registers: [tallied] }),
  };
}

const observation = fc.record({
  route: fc.constantFrom("/a", "/b/:id"),
  status: fc.constantFrom("200", "429"),
  // Bucket bounds themselves included: `le` is "less than or equal".
  seconds: fc.oneof(fc.constantFrom(...BUCKETS), fc.double({ min: 0, max: 5, noNaN: true })),
});

describe("tallied metrics", () => {
  it("render the same page as prom-client's own metrics, for any sequence of requests and scrapes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(observation, fc.constant("scrape" as const)), { maxLength: 60 }),
        async (steps) => {
          const metrics = pair();
          for (const step of steps) {
            if (step === "scrape") {
              await metrics.tallied.metrics();
              continue;
            }
            const labels = { route: step.route, status: step.status };
            metrics.plainCounter.inc(labels);
            metrics.talliedCounter.tally(labels).inc();
            metrics.plainHistogram.observe(labels, step.seconds);
            metrics.talliedHistogram.tally(labels).observe(step.seconds);
          }
          expect(await metrics.tallied.metrics()).toBe(await metrics.plain.metrics());
        },
      ),
      { numRuns: 200 },
    );
  });

  it("count an increment made after a scrape at the next scrape, once", async () => {
    const { tallied, talliedCounter } = pair();
    const ok = talliedCounter.tally({ route: "/a", status: "200" });
    ok.inc();
    expect(await tallied.metrics()).toContain('requests_total{route="/a",status="200"} 1\n');
    ok.inc(2);
    expect(await tallied.metrics()).toContain('requests_total{route="/a",status="200"} 3\n');
    expect(await tallied.metrics()).toContain('requests_total{route="/a",status="200"} 3\n');
  });

  it("hand back the same tally for the same labels, and refuse a label the metric does not declare", () => {
    const { talliedCounter, talliedHistogram } = pair();
    expect(talliedCounter.tally({ route: "/a", status: "200" })).toBe(
      talliedCounter.tally({ status: "200", route: "/a" }),
    );
    expect(() => talliedCounter.tally({ organization: "org_1" } as never)).toThrow(/organization/);
    expect(() => talliedHistogram.tally({ key: "key_1" } as never)).toThrow(/key/);
  });

  it("route a histogram's own observe() through the tallies, and empty them on reset()", async () => {
    const { tallied, talliedHistogram } = pair();
    talliedHistogram.observe({ route: "/a", status: "200" }, 0.005);
    expect(await tallied.metrics()).toContain('duration_seconds_count{route="/a",status="200"} 1\n');
    expect(() => talliedHistogram.observe({ route: "/a", status: "200" }, Number.NaN)).toThrow(TypeError);
    talliedHistogram.reset();
    expect(await tallied.metrics()).not.toContain("duration_seconds_count");
  });

  it("time a histogram's startTimer() through the tallies, and refuse the calls that would bypass them", async () => {
    const { tallied, talliedHistogram } = pair();
    const end = talliedHistogram.startTimer({ route: "/a" });
    end({ status: "200" });
    expect(await tallied.metrics()).toContain('duration_seconds_count{route="/a",status="200"} 1\n');
    // As code that knows it only as a prom-client Histogram would call them.
    const histogram: Histogram<"route" | "status"> = talliedHistogram;
    expect(() => histogram.labels({ route: "/a", status: "200" })).toThrow(/tally/);
    expect(() => histogram.zero({ route: "/a", status: "200" })).toThrow(/tally/);
    expect(() => histogram.remove({ route: "/a", status: "200" })).toThrow(/reset/);
  });

  it("perKey makes each key's tally once, and hands the same one back after", async () => {
    const { tallied, talliedCounter } = pair();
    let made = 0;
    const byRoute = perKey((route) => {
      made++;
      return talliedCounter.tally({ route, status: "200" });
    });
    for (let i = 0; i < 3; i++) byRoute("/a").inc();
    byRoute("/b").inc();
    expect(made).toBe(2);
    expect(byRoute("/a")).toBe(byRoute("/a"));
    expect(await tallied.metrics()).toContain('requests_total{route="/a",status="200"} 3\n');
  });
});
