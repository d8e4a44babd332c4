/**
 * The reference maker's pricing: pure, no I/O, time is a parameter (but `readMarket`, which reads
 * what it prices from).
 *
 * The package mid is Σ quantity × mark over the legs (marks from `public/get_instruments`, the
 * exchange's own Black-76 marks). The maker quotes `mid ∓ half` where
 * `half = max(|mid| × spread_bps / 20000, min_half_spread)`; bid rounds down and ask rounds up
 * to the micro-unit, so `bid <= ask` always and the quoted width is never below the configured one.
 */
import { ceilDiv, floorDiv } from '@legwork/protocol';
import { type DeclineReason, type Instrument, type LegworkClient, MICRO, type MarketConfig, type OpenRfq, parseRfqSigned } from '@legwork/sdk';

export interface PricingPolicy {
  /** Full width of the quote as a fraction of |mid|, in basis points (200 = bid 1 % under, ask 1 % over). */
  spreadBps: number;
  /** Smallest half width in micro-USDC (a package worth ~0 is still quoted two-sided). */
  minHalfSpread: bigint;
  /** Most legs the maker quotes. */
  maxLegs: number;
  /** Largest |quantity| of one leg, in micro-contracts. */
  maxLegSize: bigint;
  /** Quote lifetime in seconds (clamped to the RFQ's `max_quote_expires_at`). */
  quoteLifetimeSeconds: number;
  /** Declines RFQs whose legs expire sooner than this. */
  nearExpirySeconds: number;
}

export const DEFAULT_POLICY: PricingPolicy = {
  spreadBps: 200,
  minHalfSpread: 10_000n, // 0.01 USDC
  maxLegs: 13,
  maxLegSize: 1_000n * MICRO,
  quoteLifetimeSeconds: 30,
  nearExpirySeconds: 600,
};

/** When each asset's index was last posted (`public/get_market_config`), and how old it may be. */
export interface Freshness {
  indexUpdatedAt: ReadonlyMap<string, number | null>;
  maxAgeSeconds: number;
}

export type Decision =
  | { action: 'quote'; mid: bigint; bid: bigint; ask: bigint; issuedAt: number; expiresAt: number; marks: bigint[] }
  | { action: 'decline'; reason: DeclineReason; detail: string };

const abs = (x: bigint) => (x < 0n ? -x : x);

/**
 * Prices an open RFQ or says why not. Checks, in order: leg count (size_limit), every symbol
 * known, open and not paused (unlisted_instrument), time to expiry (near_expiry), leg sizes
 * (size_limit), a mark for every leg and, when `freshness` is given, an index no older than the
 * exchange's limit (stale_data).
 */
export function priceRfq(
  rfq: Pick<OpenRfq, 'legs' | 'max_quote_expires_at'>,
  instruments: ReadonlyMap<string, Instrument>,
  now: number,
  policy: PricingPolicy = DEFAULT_POLICY,
  freshness?: Freshness,
): Decision {
  if (rfq.legs.length > policy.maxLegs) return { action: 'decline', reason: 'size_limit', detail: `${rfq.legs.length} legs, at most ${policy.maxLegs}` };
  const records: Instrument[] = [];
  for (const leg of rfq.legs) {
    const record = instruments.get(leg.instrument);
    if (!record) return { action: 'decline', reason: 'unlisted_instrument', detail: `${leg.instrument} is not listed` };
    if (record.settled || record.paused)
      return { action: 'decline', reason: 'unlisted_instrument', detail: `${leg.instrument} is ${record.settled ? 'settled' : 'paused'}` };
    records.push(record);
  }
  const expiry = Math.min(...records.map((r) => r.expiry));
  if (expiry - now < policy.nearExpirySeconds) return { action: 'decline', reason: 'near_expiry', detail: `the legs expire in ${expiry - now} s` };
  const expiresAt = Math.min(now + policy.quoteLifetimeSeconds, rfq.max_quote_expires_at);
  if (expiresAt <= now) return { action: 'decline', reason: 'near_expiry', detail: 'no quote lifetime left before max_quote_expires_at' };
  const quantities = rfq.legs.map((leg) => parseRfqSigned(leg.quantity));
  const big = quantities.findIndex((q) => abs(q) > policy.maxLegSize);
  if (big !== -1) return { action: 'decline', reason: 'size_limit', detail: `${rfq.legs[big].instrument}: |${rfq.legs[big].quantity}| over the limit` };
  const marks: bigint[] = [];
  for (const record of records) {
    if (record.mark_price === null || record.mark_price === undefined)
      return { action: 'decline', reason: 'stale_data', detail: `no fresh mark for ${record.symbol}` };
    marks.push(parseRfqSigned(record.mark_price));
  }
  if (freshness) {
    // A mark is only as good as the index under it: the exchange refuses an accept on data older
    // than market_data_max_age_seconds, so a quote on it could not be filled.
    const asset = records[0].asset;
    const updatedAt = freshness.indexUpdatedAt.get(asset);
    if (updatedAt === undefined || updatedAt === null) return { action: 'decline', reason: 'stale_data', detail: `no index price for ${asset}` };
    if (now - updatedAt > freshness.maxAgeSeconds)
      return { action: 'decline', reason: 'stale_data', detail: `the ${asset} index is ${now - updatedAt} s old (max ${freshness.maxAgeSeconds} s)` };
  }
  // In micro × micro units, exact.
  const mid2 = quantities.reduce((sum, q, i) => sum + q * marks[i], 0n);
  const proportional = (abs(mid2) * BigInt(policy.spreadBps)) / 20_000n;
  const half2 = proportional > policy.minHalfSpread * MICRO ? proportional : policy.minHalfSpread * MICRO;
  const bid = floorDiv(mid2 - half2, MICRO);
  const ask = ceilDiv(mid2 + half2, MICRO);
  const mid = floorDiv(mid2 + MICRO / 2n, MICRO); // rounded half up, for display
  return { action: 'quote', mid, bid, ask, issuedAt: now, expiresAt, marks };
}

/** Instruments with their marks and when each index was last posted (one batch frame). */
export async function readMarket(client: LegworkClient): Promise<{ instruments: Map<string, Instrument>; freshness: Freshness }> {
  const [instruments, config] = await client.batch([
    { method: 'public/get_instruments', params: {} },
    { method: 'public/get_market_config', params: {} },
  ]);
  if (!instruments.ok) throw instruments.error;
  if (!config.ok) throw config.error;
  const list = (instruments.result as { instruments: Instrument[] }).instruments;
  const market = config.result as MarketConfig;
  return {
    instruments: new Map(list.map((i) => [i.symbol, i])),
    freshness: {
      indexUpdatedAt: new Map(market.assets.map((a) => [a.asset, a.index_updated_at])),
      maxAgeSeconds: market.rfq.market_data_max_age_seconds,
    },
  };
}
