import { MICRO, formatRfq } from '@legwork/protocol';
import { RfqError, type RfqErrorReason } from '../../../common/errors/app-error';
import type { MakerLimits, ProtectionSettings } from './maker-limits';

/**
 * What one firm quote puts at risk at the current marks (docs/spec/design.md section 15), and the
 * checks of a new quote against a maker's effective limits. Pure: the marks and greeks are given.
 */

/** A leg of a quote at the current marks (micro-units; `quantity` in taker-buy orientation). */
export interface MarkedLeg {
  quantity: bigint;
  index: bigint;
  mark: bigint;
  /** Per contract. */
  delta: bigint;
  vega: bigint;
}

export interface QuoteExposure {
  asset: string;
  /** sum |q_i| * index, micro-units rounded toward zero. */
  notional: bigint;
  /** Exactly, in 10^-12 units: the price band compares against it. */
  notional12: bigint;
  /** sum q_i * mark_i in 10^-12 units. */
  mark12: bigint;
  /** sum q_i * delta_i, micro-units rounded toward zero (signed). */
  delta: bigint;
  vega: bigint;
}

/** A maker's live quotes summed at the current marks: open_* are sums of absolute values. */
export interface OpenUsage {
  openQuotes: number;
  openNotional: bigint;
  openDelta: Record<string, bigint>;
  openVega: Record<string, bigint>;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

export function quoteExposure(asset: string, legs: readonly MarkedLeg[]): QuoteExposure {
  let notional12 = 0n;
  let mark12 = 0n;
  let delta12 = 0n;
  let vega12 = 0n;
  for (const l of legs) {
    notional12 += abs(l.quantity) * l.index;
    mark12 += l.quantity * l.mark;
    delta12 += l.quantity * l.delta;
    vega12 += l.quantity * l.vega;
  }
  // BigInt division truncates toward zero: the rounding of docs/spec/design.md section 15.
  return { asset, notional: notional12 / MICRO, notional12, mark12, delta: delta12 / MICRO, vega: vega12 / MICRO };
}

const openLimit = (message: string, rfqId: string, reason: RfqErrorReason<'RFQ_OPEN_LIMIT'>) => new RfqError('RFQ_OPEN_LIMIT', message, { rfqId, reason });

/**
 * The per-quote limits, in order: max_quote_notional (RFQ_SIZE_INVALID), then price_band_bps
 * (RFQ_PRICE_TOLERANCE: the farther side of the quote from the package's mark, above
 * `notional * bps / 10000`). Each message names the limit and the value the quote reaches.
 */
export function checkQuoteLimits(l: MakerLimits, q: QuoteExposure, quote: { bid: bigint; ask: bigint }, rfqId: string): void {
  if (l.maxQuoteNotional !== undefined && q.notional > l.maxQuoteNotional) {
    throw new RfqError('RFQ_SIZE_INVALID', `max_quote_notional ${formatRfq(l.maxQuoteNotional)}: this quote's notional is ${formatRfq(q.notional)}`, {
      rfqId,
      reason: 'max_quote_notional',
    });
  }
  if (l.priceBandBps !== undefined) {
    const far = [abs(quote.ask * MICRO - q.mark12), abs(quote.bid * MICRO - q.mark12)].reduce((a, b) => (a > b ? a : b));
    if (far * 10_000n > q.notional12 * BigInt(l.priceBandBps)) {
      const band = (q.notional12 * BigInt(l.priceBandBps)) / 10_000n / MICRO;
      throw new RfqError(
        'RFQ_PRICE_TOLERANCE',
        `price_band_bps ${l.priceBandBps}: the quote reaches ${formatRfq(far / MICRO)} from the mark ${formatRfq(q.mark12 / MICRO)} (band ${formatRfq(band)})`,
        { rfqId, reason: 'price_band' },
      );
    }
  }
}

/** The limits on what is out, after adding this quote, in order: count, notional, delta, vega (each RFQ_OPEN_LIMIT, retryable). */
export function checkOpenLimits(l: MakerLimits, usage: OpenUsage, q: QuoteExposure, rfqId: string): void {
  if (l.maxOpenQuotes !== undefined && usage.openQuotes + 1 > l.maxOpenQuotes) {
    const what = l.maxOpenQuotes === 0 ? ' (the kill switch: no new quote is taken)' : '';
    // The kill switch is not retryable: only the maker raising max_open_quotes ends it (docs/errors.md).
    throw openLimit(
      `max_open_quotes ${l.maxOpenQuotes}${what}: open quotes would reach ${usage.openQuotes + 1}`,
      rfqId,
      l.maxOpenQuotes === 0 ? 'kill_switch' : 'max_open_quotes',
    );
  }
  if (l.maxOpenNotional !== undefined && usage.openNotional + q.notional > l.maxOpenNotional) {
    throw openLimit(
      `max_open_notional ${formatRfq(l.maxOpenNotional)}: open notional would reach ${formatRfq(usage.openNotional + q.notional)}`,
      rfqId,
      'max_open_notional',
    );
  }
  const perAsset = (name: 'max_open_delta' | 'max_open_vega', limits: Record<string, bigint> | undefined, open: Record<string, bigint>, value: bigint) => {
    const limit = limits?.[q.asset];
    const after = (open[q.asset] ?? 0n) + abs(value);
    if (limit !== undefined && after > limit)
      throw openLimit(`${name}.${q.asset} ${formatRfq(limit)}: open ${name.slice(9)} would reach ${formatRfq(after)}`, rfqId, name);
  };
  perAsset('max_open_delta', l.maxOpenDelta, usage.openDelta, q.delta);
  perAsset('max_open_vega', l.maxOpenVega, usage.openVega, q.vega);
}

/** The fills of the maker's quotes in the current protection window. */
export interface FillWindow {
  fills: number;
  notional: bigint;
  /** asset → sum of |delta| of the fills */
  delta: Record<string, bigint>;
}

/** Why the window trips the protection (the first threshold it exceeds), or null. */
export function protectionTrip(p: ProtectionSettings, w: FillWindow): string | null {
  const span = `in ${p.windowSeconds} s`;
  if (p.maxFills !== undefined && w.fills > p.maxFills) return `max_fills ${p.maxFills}: ${w.fills} fills ${span}`;
  if (p.maxFillNotional !== undefined && w.notional > p.maxFillNotional) {
    return `max_fill_notional ${formatRfq(p.maxFillNotional)}: ${formatRfq(w.notional)} filled ${span}`;
  }
  for (const [asset, limit] of Object.entries(p.maxFillDelta ?? {})) {
    const delta = w.delta[asset] ?? 0n;
    if (delta > limit) return `max_fill_delta.${asset} ${formatRfq(limit)}: ${formatRfq(delta)} delta filled ${span}`;
  }
  return null;
}
