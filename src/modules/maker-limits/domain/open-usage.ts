import { MICRO } from '@legwork/protocol';
import type { QuotedLeg } from './quoted-rfq';
import type { OpenUsage } from './quote-exposure';

/**
 * The usage of a maker's live quotes (docs/spec/design.md section 15), summed here rather than in
 * SQL: a quote's legs never change, so they are read once and kept, and each call only lists the
 * live quotes' ids. Per quote `notional = sum |q| * index`, `delta = sum q * delta_i`, `vega = sum
 * q * vega_i`, exact, then rounded toward zero to micro-units; the open_* sum absolute values. The
 * sums run in doubles while every partial sum is an integer below 2^53 (exact), else in bigint.
 */

/** A live quote's legs as the sums take them. */
export interface QuoteLegs {
  asset: string;
  symbols: string[];
  /** micro-units, as numbers (exact: |q| <= 2^53) */
  quantities: number[];
  big: bigint[];
  /** sum |q| in micro-units (a number; the bound of every partial sum, with the largest greek) */
  absSum: number;
}

/** Per-contract greeks and index prices at the current marks. */
export interface UsageMarks {
  /** symbol → micro-units per contract, as numbers and as bigints */
  greeks: Map<string, { delta: number; vega: number; deltaBig: bigint; vegaBig: bigint }>;
  /** The largest |delta| or |vega| of the table. */
  maxGreek: number;
  index: Map<string, bigint>;
}

/** The sums' form of a greeks table (symbol → delta and vega per contract) and the index prices. */
export function usageMarks(greeks: ReadonlyMap<string, { delta: bigint; vega: bigint }>, indexes: Iterable<{ asset: string; price: bigint }>): UsageMarks {
  const marks: UsageMarks = { greeks: new Map(), maxGreek: 0, index: new Map() };
  for (const [symbol, g] of greeks) {
    const delta = Number(g.delta);
    const vega = Number(g.vega);
    marks.greeks.set(symbol, { delta, vega, deltaBig: g.delta, vegaBig: g.vega });
    marks.maxGreek = Math.max(marks.maxGreek, Math.abs(delta), Math.abs(vega));
  }
  for (const q of indexes) marks.index.set(q.asset, q.price);
  return marks;
}

const SAFE = Number.MAX_SAFE_INTEGER;
const MICRO_N = Number(MICRO);

export function quoteLegs(asset: string, legs: readonly QuotedLeg[]): QuoteLegs {
  const big = legs.map((l) => l.quantity);
  const quantities = big.map((q) => Number(q));
  return { asset, symbols: legs.map((l) => l.instrument), quantities, big, absSum: quantities.reduce((s, q) => s + Math.abs(q), 0) };
}

/** An exact integer's quotient by 10^6, toward zero. */
const toMicro = (x: number) => (x - (x % MICRO_N)) / MICRO_N;
const absBig = (x: bigint) => (x < 0n ? -x : x);

/** One asset's sums: in doubles while they stay exact, the rest in bigint. */
class AssetSums {
  readonly indexN: number;
  notional = 0;
  notionalBig = 0n;
  delta = 0;
  deltaBig = 0n;
  vega = 0;
  vegaBig = 0n;

  constructor(readonly index: bigint) {
    this.indexN = Number(index);
  }

  add(q: QuoteLegs, marks: UsageMarks): void {
    const product = q.absSum * this.indexN;
    if (product <= SAFE) this.addNotional(toMicro(product));
    else this.notionalBig += (BigInt(q.absSum) * this.index) / MICRO;
    if (q.absSum * marks.maxGreek <= SAFE) {
      let d = 0;
      let v = 0;
      for (let i = 0; i < q.symbols.length; i++) {
        const g = marks.greeks.get(q.symbols[i]);
        if (g === undefined) continue;
        d += q.quantities[i] * g.delta;
        v += q.quantities[i] * g.vega;
      }
      this.addGreeks(Math.abs(toMicro(d)), Math.abs(toMicro(v)));
      return;
    }
    let d = 0n;
    let v = 0n;
    for (let i = 0; i < q.symbols.length; i++) {
      const g = marks.greeks.get(q.symbols[i]);
      if (g === undefined) continue;
      d += q.big[i] * g.deltaBig;
      v += q.big[i] * g.vegaBig;
    }
    this.deltaBig += absBig(d / MICRO);
    this.vegaBig += absBig(v / MICRO);
  }

  private addNotional(x: number): void {
    if (this.notional + x <= SAFE) this.notional += x;
    else this.notionalBig += BigInt(x);
  }

  private addGreeks(d: number, v: number): void {
    if (this.delta + d <= SAFE) this.delta += d;
    else this.deltaBig += BigInt(d);
    if (this.vega + v <= SAFE) this.vega += v;
    else this.vegaBig += BigInt(v);
  }
}

export function openUsage(quotes: readonly QuoteLegs[], marks: UsageMarks): OpenUsage {
  const sums = new Map<string, AssetSums>();
  for (const q of quotes) {
    let s = sums.get(q.asset);
    if (s === undefined) {
      s = new AssetSums(marks.index.get(q.asset) ?? 0n);
      sums.set(q.asset, s);
    }
    s.add(q, marks);
  }
  const assets = [...sums.keys()].sort();
  const usage: OpenUsage = { openQuotes: quotes.length, openNotional: 0n, openDelta: {}, openVega: {} };
  for (const asset of assets) {
    const s = sums.get(asset)!;
    usage.openNotional += BigInt(s.notional) + s.notionalBig;
    usage.openDelta[asset] = BigInt(s.delta) + s.deltaBig;
    usage.openVega[asset] = BigInt(s.vega) + s.vegaBig;
  }
  return usage;
}

/** Two usages together (each a sum over its quotes, so the sum over both). */
export function addUsage(a: OpenUsage, b: OpenUsage): OpenUsage {
  const add = (x: Record<string, bigint>, y: Record<string, bigint>) => {
    const assets = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
    return Object.fromEntries(assets.map((asset) => [asset, (x[asset] ?? 0n) + (y[asset] ?? 0n)]));
  };
  return {
    openQuotes: a.openQuotes + b.openQuotes,
    openNotional: a.openNotional + b.openNotional,
    openDelta: add(a.openDelta, b.openDelta),
    openVega: add(a.openVega, b.openVega),
  };
}
