import { Counter, Histogram, Registry } from 'prom-client';
import { BoundCounter, BoundHistogram } from './bound-series';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.1, 1];
/** On bounds, between them, below the first and above the last; two methods, one outcome each and a shared one. */
const OBSERVED: Array<[string, string, number]> = [
  ['public/get_market_config', 'ok', 0.0004],
  ['public/get_market_config', 'ok', 0.001],
  ['public/get_market_config', 'RFQ_NOT_READY', 0.0026],
  ['rfq.create', 'ok', 0.01],
  ['rfq.create', 'ok', 0.05],
  ['rfq.create', 'RFQ_NOT_READY', 7.5],
  ['public/get_market_config', 'ok', 1],
];

describe('bound series (the hot path metrics)', () => {
  it('expose the same /metrics text as prom-client counters and histograms fed the same observations', async () => {
    const ours = new Registry();
    const calls = new BoundCounter({ name: 'c_total', help: 'calls', labelNames: ['method', 'outcome'] as const, registry: ours });
    const times = new BoundHistogram({ name: 'd_seconds', help: 'time', labelNames: ['method'] as const, buckets: BUCKETS, registry: ours });
    const theirs = new Registry();
    const counter = new Counter({ name: 'c_total', help: 'calls', labelNames: ['method', 'outcome'] as const, registers: [theirs] });
    const histogram = new Histogram({ name: 'd_seconds', help: 'time', labelNames: ['method'] as const, buckets: BUCKETS, registers: [theirs] });

    for (const [method, outcome, seconds] of OBSERVED) {
      // Ours is bound once per call here (the service keeps them): binding again finds the same series.
      calls.series({ outcome, method }).inc();
      times.series({ method }).observe(seconds);
      counter.inc({ method, outcome });
      histogram.observe({ method }, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('d_seconds_bucket{le="0.001",method="public/get_market_config"} 2');
    expect(text).toContain('d_seconds_bucket{le="+Inf",method="rfq.create"} 3');
    expect(text).toContain('c_total{method="rfq.create",outcome="ok"} 2');
  });

  it('refuses a value that is not a finite number, and counts nothing for it', async () => {
    const registry = new Registry();
    const times = new BoundHistogram({ name: 'd_seconds', help: 'time', labelNames: ['method'] as const, buckets: BUCKETS, registry });
    const series = times.series({ method: 'x' });
    expect(() => series.observe(Number.NaN)).toThrow(TypeError);
    expect(() => series.observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(await registry.metrics()).toContain('d_seconds_count{method="x"} 0');
  });

  it('reset zeroes every series in place: a series bound before it counts again after it', async () => {
    const registry = new Registry();
    const calls = new BoundCounter({ name: 'c_total', help: 'calls', labelNames: ['method'] as const, registry });
    const bound = calls.series({ method: 'x' });
    bound.inc();
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('c_total{method="x"} 0');
    bound.inc();
    expect(await registry.metrics()).toContain('c_total{method="x"} 1');
  });
});
