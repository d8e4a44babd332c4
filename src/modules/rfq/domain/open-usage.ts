import { MICRO } from '@legwork/protocol';
import type { RfqLeg } from './rfq-record';
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
  delta: Map<string, number>;
  vega: Map<string, number>;
  /** The largest |delta| or |vega| of the table. */
  maxGreek: number;
  index: Map<string, bigint>;
}

const SAFE = Number.MAX_SAFE_INTEGER;
const MICRO_N = Number(MICRO);

export function quoteLegs(asset: string, legs: readonly RfqLeg[]): QuoteLegs {
  const big = legs.map((l) => l.quantity);
  const quantities = big.map((q) => Number(q));
  return { asset, symbols: legs.map((l) => l.instrument), quantities, big, absSum: quantities.reduce((s, q) => s + Math.abs(q), 0) };
}

/** An exact integer's quotient by 10^6, toward zero. */
const toMicro = (x: number) => (x - (x % MICRO_N)) / MICRO_N;
const absBig = (x: bigint) => (x < 0n ? -x : x);

/** sum q_i * greek_i of one quote toward zero, micro-units, absolute (a missing greek counts zero). */
function greekSum(q: QuoteLegs, greek: Map<string, number>, exact: boolean): number | bigint {
  if (exact) {
    let s = 0;
    for (let i = 0; i < q.symbols.length; i++) s += q.quantities[i] * (greek.get(q.symbols[i]) ?? 0);
    return Math.abs(toMicro(s));
  }
  let s = 0n;
  for (let i = 0; i < q.symbols.length; i++) s += q.big[i] * BigInt(greek.get(q.symbols[i]) ?? 0);
  return absBig(s / MICRO);
}

export function openUsage(quotes: readonly QuoteLegs[], marks: UsageMarks): OpenUsage {
  let notional = 0n;
  const delta = new Map<string, { n: number; b: bigint }>();
  const vega = new Map<string, { n: number; b: bigint }>();
  const add = (map: Map<string, { n: number; b: bigint }>, asset: string, value: number | bigint) => {
    const sum = map.get(asset) ?? { n: 0, b: 0n };
    if (typeof value === 'number' && sum.n + value <= SAFE) sum.n += value;
    else sum.b += BigInt(value);
    map.set(asset, sum);
  };
  for (const q of quotes) {
    const index = marks.index.get(q.asset) ?? 0n;
    notional += (BigInt(q.absSum) * index) / MICRO;
    const exact = q.absSum * marks.maxGreek <= SAFE;
    add(delta, q.asset, greekSum(q, marks.delta, exact));
    add(vega, q.asset, greekSum(q, marks.vega, exact));
  }
  const total = (map: Map<string, { n: number; b: bigint }>) =>
    Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : 1)).map(([asset, s]) => [asset, BigInt(s.n) + s.b]));
  return { openQuotes: quotes.length, openNotional: notional, openDelta: total(delta), openVega: total(vega) };
}
