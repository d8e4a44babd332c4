import { MICRO, type RfqPositionRow, parseHttpDecimal } from '@legwork/protocol';
import { plotNumber } from './money';

/** What the payoff reads of a `/query/rfq-positions` row (the contract's `RfqPositionRow`). */
export type PositionRow = Pick<RfqPositionRow, 'instrument' | 'asset' | 'strike' | 'kind' | 'expiry' | 'quantity'>;

export interface Round {
  key: string;
  asset: string;
  expiry: number;
  positions: PositionRow[];
}

/** The account's open positions grouped by round (asset and expiry), in expiry order. */
export function roundsOf(positions: PositionRow[]): Round[] {
  const rounds = new Map<string, Round>();
  for (const p of positions) {
    const key = `${p.asset}-${p.expiry}`;
    if (!rounds.has(key)) rounds.set(key, { key, asset: p.asset, expiry: p.expiry, positions: [] });
    rounds.get(key)!.positions.push(p);
  }
  return [...rounds.values()].sort((a, b) => a.expiry - b.expiry || a.asset.localeCompare(b.asset));
}

/**
 * The value of the round's positions at expiry as a function of the settlement price: each
 * contract pays its intrinsic value (section 7's settlement), long positive, short negative.
 * Computed in micro-units; 121 points from 0 to twice the highest strike.
 */
export function payoffCurve(round: Round, points = 121): { prices: number[]; payoffs: number[] } {
  const legs = round.positions.map((p) => ({ strike: parseHttpDecimal(p.strike), quantity: parseHttpDecimal(p.quantity), call: p.kind === 'call' }));
  const top = legs.reduce((max, l) => (l.strike > max ? l.strike : max), 0n) * 2n || 2n * MICRO;
  const prices: number[] = [];
  const payoffs: number[] = [];
  for (let i = 0; i < points; i++) {
    const price = (top * BigInt(i)) / BigInt(points - 1);
    let total = 0n;
    for (const l of legs) {
      const intrinsic = l.call ? (price > l.strike ? price - l.strike : 0n) : price < l.strike ? l.strike - price : 0n;
      total += (intrinsic * l.quantity) / MICRO;
    }
    prices.push(plotNumber(price));
    payoffs.push(plotNumber(total));
  }
  return { prices, payoffs };
}
