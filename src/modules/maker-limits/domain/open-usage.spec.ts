import { openUsage, quoteLegs, usageMarks } from './open-usage';
import { quoteExposure } from './quote-exposure';

const M = 1_000_000n;

/** The reference: each quote through quoteExposure (bigint all the way). */
function reference(
  quotes: Array<{ asset: string; legs: Array<{ instrument: string; quantity: bigint }> }>,
  greeks: Record<string, { delta: bigint; vega: bigint }>,
  index: Record<string, bigint>,
) {
  let notional = 0n;
  const delta: Record<string, bigint> = {};
  const vega: Record<string, bigint> = {};
  for (const q of quotes) {
    const e = quoteExposure(
      q.asset,
      q.legs.map((l) => ({
        quantity: l.quantity,
        index: index[q.asset],
        mark: 0n,
        delta: greeks[l.instrument]?.delta ?? 0n,
        vega: greeks[l.instrument]?.vega ?? 0n,
      })),
    );
    notional += e.notional;
    delta[q.asset] = (delta[q.asset] ?? 0n) + (e.delta < 0n ? -e.delta : e.delta);
    vega[q.asset] = (vega[q.asset] ?? 0n) + (e.vega < 0n ? -e.vega : e.vega);
  }
  return { openQuotes: quotes.length, openNotional: notional, openDelta: delta, openVega: vega };
}

describe('openUsage', () => {
  it('equals the bigint reference on random books, small and huge (double and bigint paths)', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const symbols = ['A', 'B', 'C', 'D', 'X'];
    for (const scale of [1n, 1_000_000n]) {
      const greeks: Record<string, { delta: bigint; vega: bigint }> = {};
      for (const s of symbols.slice(0, 4))
        greeks[s] = { delta: BigInt(Math.floor(rnd() * 2_000_001) - 1_000_000), vega: BigInt(Math.floor(rnd() * 30_000_000_000)) };
      const index = { SOL: 150n * M, BTC: 100_000n * M };
      const quotes = Array.from({ length: 300 }, () => ({
        asset: rnd() < 0.5 ? 'SOL' : 'BTC',
        legs: symbols
          .filter(() => rnd() < 0.5)
          .map((instrument) => ({ instrument, quantity: (BigInt(Math.floor(rnd() * 20_000_000)) - 10_000_000n || 1n) * scale })),
      }));
      const marks = usageMarks(
        new Map(Object.entries(greeks)),
        Object.entries(index).map(([asset, price]) => ({ asset, price })),
      );
      const got = openUsage(
        quotes.map((q) => quoteLegs(q.asset, q.legs)),
        marks,
      );
      expect(got).toEqual(reference(quotes, greeks, index));
    }
  });

  it('sums 5,000 two-leg quotes in well under a millisecond or two', () => {
    const quotes = Array.from({ length: 5000 }, (_, i) =>
      quoteLegs('SOL', [
        { instrument: 'A', quantity: BigInt(i + 1) * 1000n },
        { instrument: 'B', quantity: -M },
      ]),
    );
    const marks = usageMarks(
      new Map([
        ['A', { delta: 545_649n, vega: 17_043_543n }],
        ['B', { delta: 400_000n, vega: 16_000_000n }],
      ]),
      [{ asset: 'SOL', price: 150n * M }],
    );
    for (let i = 0; i < 20; i++) openUsage(quotes, marks);
    const started = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) openUsage(quotes, marks);
    const ms = Number(process.hrtime.bigint() - started) / 20 / 1e6;
    process.stdout.write(`openUsage: ${ms.toFixed(3)} ms for 5,000 quotes\n`);
  });
});
