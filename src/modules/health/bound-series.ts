import type { Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string>;

/** One exposition value in prom-client's form (Registry.getMetricsAsString reads these). */
interface ExpositionValue {
  labels: object;
  value: number;
  metricName?: string;
  /** The series' labels, listed after `labels` (a histogram's `le` comes first). */
  sharedLabels?: object;
  exemplar?: null;
}

/** What a prom-client metric's `get()` answers. */
interface Exposition {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: ExpositionValue[];
}

/** One series of a BoundCounter. */
export interface CounterSeries {
  inc(): void;
}

/** One series of a BoundHistogram. */
export interface HistogramSeries {
  observe(value: number): void;
}

/**
 * A labelled metric whose series are bound once by their label values (`series`) and then counted
 * with plain arithmetic. prom-client's own labelled children convert, validate and hash their
 * labels on every call: about a fifth of a JSON-RPC call's time under load (bench F2). Registered
 * on the instance's prom-client Registry, which formats it as it formats its own metrics: `get()`
 * answers the values in the shape prom-client's Counter and Histogram do, so /metrics is the same
 * text. Label values are the caller's to bound (as with prom-client).
 */
abstract class BoundMetric<L extends string, S> {
  readonly aggregator = 'sum' as const;
  private readonly bound = new Map<string, { labels: Labels<L>; state: S }>();

  protected constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of these label values: its state, made on first use and kept. */
  protected state(labels: Labels<L>): S {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let entry = this.bound.get(key);
    if (!entry) {
      // Copied in label-name order: the exposition lists them in this order, as prom-client does.
      const copy = Object.fromEntries(this.labelNames.map((name) => [name, labels[name]])) as Labels<L>;
      entry = { labels: copy, state: this.fresh() };
      this.bound.set(key, entry);
    }
    return entry.state;
  }

  protected abstract fresh(): S;

  protected entries(): Iterable<{ labels: Labels<L>; state: S }> {
    return this.bound.values();
  }

  /**
   * Registry.resetMetrics: every series back to zero, in place (its callers keep their bound
   * series). prom-client instead stops listing a series until it is counted again.
   */
  reset(): void {
    for (const { state } of this.bound.values()) this.zero(state);
  }

  protected abstract zero(state: S): void;

  abstract readonly type: Exposition['type'];

  /** The exposition values of every series, in prom-client's form. */
  protected abstract values(): ExpositionValue[];

  get(): Exposition {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }
}

/** A labelled counter (see BoundMetric). */
export class BoundCounter<L extends string> extends BoundMetric<L, { value: number }> {
  readonly type = 'counter' as const;

  constructor(config: { name: string; help: string; labelNames: readonly L[]; registry: Registry }) {
    super(config.name, config.help, config.labelNames, config.registry);
  }

  series(labels: Labels<L>): CounterSeries {
    const state = this.state(labels);
    return { inc: () => void (state.value += 1) };
  }

  protected fresh(): { value: number } {
    return { value: 0 };
  }

  protected zero(state: { value: number }): void {
    state.value = 0;
  }

  protected values(): ExpositionValue[] {
    return [...this.entries()].map(({ labels, state }) => ({ value: state.value, labels }));
  }
}

interface Buckets {
  /** Observations per bucket, not cumulative: counts[i] those at most upper[i] and above upper[i - 1]. */
  counts: number[];
  sum: number;
  count: number;
}

/** A labelled histogram (see BoundMetric): cumulative `le` buckets, `+Inf`, `_sum` and `_count`, as prom-client's. */
export class BoundHistogram<L extends string> extends BoundMetric<L, Buckets> {
  readonly type = 'histogram' as const;
  private readonly upper: readonly number[];

  constructor(config: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[]; registry: Registry }) {
    super(config.name, config.help, config.labelNames, config.registry);
    this.upper = [...config.buckets].sort((a, b) => a - b);
  }

  series(labels: Labels<L>): HistogramSeries {
    const state = this.state(labels);
    const upper = this.upper;
    return {
      observe: (value: number) => {
        if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
        let i = 0;
        while (i < upper.length && value > upper[i]) i++;
        if (i < upper.length) state.counts[i] += 1;
        state.sum += value;
        state.count += 1;
      },
    };
  }

  protected fresh(): Buckets {
    return { counts: this.upper.map(() => 0), sum: 0, count: 0 };
  }

  protected zero(state: Buckets): void {
    state.counts.fill(0);
    state.sum = 0;
    state.count = 0;
  }

  protected values(): ExpositionValue[] {
    const values: ExpositionValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, state } of this.entries()) {
      let cumulative = 0;
      this.upper.forEach((le, i) => {
        cumulative += state.counts[i];
        values.push(pair({ le }, cumulative, bucket, labels));
      });
      values.push(
        pair({ le: '+Inf' }, state.count, bucket, labels),
        pair({}, state.sum, `${this.name}_sum`, labels),
        pair({}, state.count, `${this.name}_count`, labels),
      );
    }
    return values;
  }
}

/** One exposition value as prom-client's histogram gives it: its own labels, then the series' (sharedLabels). */
const pair = (labels: object, value: number, metricName: string, sharedLabels: object): ExpositionValue => ({
  labels,
  sharedLabels,
  value,
  metricName,
  exemplar: null,
});
