import {
  Counter,
  type CounterConfiguration,
  Histogram,
  type HistogramConfiguration,
  type LabelValues,
  type MetricObjectWithValues,
  type MetricValueWithName,
  type ObserveDataWithExemplar,
} from "prom-client";

/**
 * Counts and observations on the hot path as plain additions, handed to prom-client only when the
 * registry is scraped. prom-client's own `inc` and `observe` check and hash the label set on every call
 * (about 0.5 µs each, and a request makes four of them); a tally is looked up once per label set and
 * kept, so the request pays an addition. The page a scrape renders is the same as prom-client's
 * (test/metrics/tallies.test.ts compares them).
 */

/** One label set's count. */
export interface CounterTally {
  inc(amount?: number): void;
}

/** One label set's distribution. */
export interface HistogramTally {
  observe(value: number): void;
}

/**
 * A label set's key in the tally maps (its values in the metric's label order), after the check
 * prom-client makes on every call: each label is one the metric declares.
 */
function keyOf<T extends string>(metric: string, labelNames: readonly T[], labels: LabelValues<T>): string {
  for (const name of Object.keys(labels)) {
    if (!labelNames.includes(name as T)) throw new Error(`${metric}: label "${name}" is not declared`);
  }
  return labelNames.map((name) => String(labels[name] ?? "")).join("\u0000");
}

/**
 * `create(key)`, made once per key and then looked up: how a request finds its tallies by a string it
 * already holds (an outcome, a group), without building and checking a label set each time (`tally`).
 */
export function perKey<T>(create: (key: string) => T): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    let found = made.get(key);
    if (found === undefined) {
      found = create(key);
      made.set(key, found);
    }
    return found;
  };
}

/** A label set's count since the last scrape. */
class CountTally<T extends string> implements CounterTally {
  pending = 0;
  constructor(readonly labels: LabelValues<T>) {}
  inc(amount = 1): void {
    this.pending += amount;
  }
}

/**
 * A prom-client Counter whose `tally(labels)` returns a label set's count (the same object each time,
 * so a caller may keep it); its additions reach the counter (`inc` with the sum) at the scrape.
 */
export class TalliedCounter<T extends string> extends Counter<T> {
  readonly #tallies = new Map<string, CountTally<T>>();
  readonly #name: string;
  readonly #labelNames: readonly T[];

  constructor(configuration: Omit<CounterConfiguration<T>, "collect">) {
    super({
      ...configuration,
      collect: () => {
        for (const tally of this.#tallies.values()) {
          if (tally.pending === 0) continue;
          this.inc(tally.labels, tally.pending);
          tally.pending = 0;
        }
      },
    });
    this.#name = configuration.name;
    this.#labelNames = configuration.labelNames ?? [];
  }

  tally(labels: LabelValues<T> = {}): CounterTally {
    const key = keyOf(this.#name, this.#labelNames, labels);
    let tally = this.#tallies.get(key);
    if (!tally) {
      tally = new CountTally({ ...labels });
      this.#tallies.set(key, tally);
    }
    return tally;
  }
}

/** A label set's observations: counts per bucket (not cumulative; the last is above every bound). */
class Distribution<T extends string> implements HistogramTally {
  readonly buckets: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: LabelValues<T>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    // prom-client refuses these too.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    let index = 0;
    while (index < this.bounds.length && value > (this.bounds[index] as number)) index++;
    this.buckets[index] = (this.buckets[index] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A prom-client Histogram kept as plain per-bucket counts: `tally(labels)` returns a label set's
 * distribution (the same object each time), and every observation, `observe` included, goes there. prom-client has no call that adds
 * many observations at once, so the scrape renders the counts itself, in the same shape as prom-client's
 * (cumulative `_bucket` series per `le`, then `+Inf`, `_sum` and `_count`).
 */
export class TalliedHistogram<T extends string> extends Histogram<T> {
  readonly #distributions = new Map<string, Distribution<T>>();
  readonly #name: string;
  readonly #help: string;
  readonly #labelNames: readonly T[];
  readonly #bounds: readonly number[];

  constructor(configuration: Omit<HistogramConfiguration<T>, "collect" | "enableExemplars">) {
    super(configuration);
    // prom-client's constructor sets `observe` on the instance, which would hide this class's.
    this.observe = TalliedHistogram.prototype.observe;
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#labelNames = configuration.labelNames ?? [];
    this.#bounds = [...(configuration.buckets ?? [])].sort((a, b) => a - b);
  }

  tally(labels: LabelValues<T> = {}): HistogramTally {
    const key = keyOf(this.#name, this.#labelNames, labels);
    let distribution = this.#distributions.get(key);
    if (!distribution) {
      distribution = new Distribution({ ...labels }, this.#bounds);
      this.#distributions.set(key, distribution);
    }
    return distribution;
  }

  override observe(labels: LabelValues<T> | number | ObserveDataWithExemplar<T>, value?: number): void {
    if (typeof labels === "number") this.tally().observe(labels);
    else if ("exemplarLabels" in labels) throw new Error(`${this.#name}: exemplars are not enabled`);
    else this.tally(labels as LabelValues<T>).observe(value ?? Number.NaN);
  }

  // prom-client's own versions of these would keep their series apart from the tallies, where the scrape
  // never looks: refused rather than silently lost.
  override labels(): never {
    throw new Error(`${this.#name}: use tally(labels), which returns the label set's distribution`);
  }

  override zero(): never {
    throw new Error(`${this.#name}: a label set's series appears with its first tally(labels)`);
  }

  override remove(): never {
    throw new Error(`${this.#name}: label sets of a tallied histogram are kept until reset()`);
  }

  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields exist.
    if (#distributions in this) this.#distributions.clear();
    super.reset();
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<T>>> {
    return this.#render();
  }

  // The registry renders from this when prom-client's Histogram has it (it is not in its type
  // declarations); the tallies are the only source, so it is what `get()` returns.
  async getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<T>>> {
    return this.#render();
  }

  #render(): MetricObjectWithValues<MetricValueWithName<T>> {
    const values: MetricValueWithName<T>[] = [];
    for (const { labels, buckets, sum, count } of this.#distributions.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += buckets[index] as number;
        values.push({
          labels: { le: bound, ...labels },
          value: cumulative,
          metricName: `${this.#name}_bucket`,
        });
      });
      values.push({ labels: { le: "+Inf", ...labels }, value: count, metricName: `${this.#name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.#name}_sum` });
      values.push({ labels, value: count, metricName: `${this.#name}_count` });
    }
    // What prom-client's Histogram returns. Its declarations disagree with it (they type `type` as a
    // numeric enum that is not exported at run time, and list `collect`), hence the cast.
    const rendered = { name: this.#name, help: this.#help, type: "histogram", values, aggregator: "sum" };
    return rendered as unknown as MetricObjectWithValues<MetricValueWithName<T>>;
  }
}
