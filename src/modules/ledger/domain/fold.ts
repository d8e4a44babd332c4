/**
 * What a fill does to the two accounts (docs/spec/interface.md 2.3, docs/spec/design.md section 5), as pure functions:
 *
 * - Positions: on a `buy` accept the taker receives each leg's `quantity` and the maker its
 *   negation; on a `sell` accept the taker receives `-quantity` and the maker `quantity`. Deltas
 *   keep the taker's leg order.
 * - Cash: buy, the taker pays `ask` to the maker; sell, the maker pays `bid` to the taker (a
 *   negative amount flows the other way); the taker pays the fee to the fee account.
 *
 * A revert applies the negation of both (`reverse`), so it undoes a fill exactly.
 */
import { FLAT, type PositionCost, addTrade } from './average-price';
import type { AcceptSide } from './funding';

export interface PackageLeg {
  instrument: string;
  /** signed micro-contracts, taker-buy orientation */
  quantity: bigint;
}

export interface PositionDelta {
  instrument: string;
  /** signed micro-contracts added to the account's net position (long positive) */
  quantity: bigint;
}

export interface FillDeltas {
  taker: PositionDelta[];
  maker: PositionDelta[];
}

/** +1 when the account receives the legs as quoted (taker on buy, maker on sell), else -1. */
export function orientation(role: 'taker' | 'maker', side: AcceptSide): 1n | -1n {
  return (role === 'taker') === (side === 'buy') ? 1n : -1n;
}

export function positionDeltas(legs: readonly PackageLeg[], side: AcceptSide): FillDeltas {
  const as = (role: 'taker' | 'maker') => legs.map((l) => ({ instrument: l.instrument, quantity: orientation(role, side) * l.quantity }));
  return { taker: as('taker'), maker: as('maker') };
}

/** A leg of a fill as one account trades it: the contracts it receives and what it pays for them. */
export interface LegTrade extends PositionDelta {
  /** micro-USDC the account pays for `quantity` (negative: receives), its share of the premium */
  paid: bigint;
}

/**
 * The legs of a fill as each account trades them, for the positions' average cost: the same
 * orientation as `positionDeltas`, with each leg's premium share (taker-buy orientation) paid
 * the same way round.
 */
export function legTrades(legs: ReadonlyArray<PackageLeg & { premium: bigint }>, side: AcceptSide): { taker: LegTrade[]; maker: LegTrade[] } {
  const as = (role: 'taker' | 'maker') => {
    const sign = orientation(role, side);
    return legs.map((l) => ({ instrument: l.instrument, quantity: sign * l.quantity, paid: sign * l.premium }));
  };
  return { taker: as('taker'), maker: as('maker') };
}

/**
 * Each traded instrument's position after the trades of one fill (its instruments are distinct):
 * the quantity added and the position with its new average cost. `held`: the account's positions
 * by instrument before (absent: flat).
 */
export function positionsAfter(
  held: ReadonlyMap<string, PositionCost>,
  trades: readonly LegTrade[],
): Array<{ instrument: string; delta: bigint; position: PositionCost }> {
  return trades.map((t) => ({ instrument: t.instrument, delta: t.quantity, position: addTrade(held.get(t.instrument) ?? FLAT, t) }));
}

export interface CashFlows {
  /** signed micro-USDC added to each `total` */
  taker: bigint;
  maker: bigint;
  feeAccount: bigint;
  /** the package premium of the accepted side: `ask` on a buy, `bid` on a sell */
  price: bigint;
}

export function cashFlows(q: { side: AcceptSide; bid: bigint; ask: bigint; fee: bigint }): CashFlows {
  if (q.fee < 0n) throw new RangeError('a fee is never negative');
  const price = q.side === 'buy' ? q.ask : q.bid;
  // Taker's package cash delta: buy -ask, sell +bid; the maker's is its negation.
  const takerPremium = q.side === 'buy' ? -q.ask : q.bid;
  return { taker: takerPremium - q.fee, maker: -takerPremium, feeAccount: q.fee, price };
}

/** The cash flows of a revert: every amount negated. */
export function reverseCash(flows: CashFlows): CashFlows {
  return { taker: -flows.taker, maker: -flows.maker, feeAccount: -flows.feeAccount, price: flows.price };
}

/** The position deltas of a revert: every quantity negated, same order. */
export function reverseDeltas(deltas: readonly PositionDelta[]): PositionDelta[] {
  return deltas.map((d) => ({ instrument: d.instrument, quantity: -d.quantity }));
}

/** Net positions by instrument after adding `deltas` (zero rows stay, with quantity 0). */
export function foldPositions(current: ReadonlyMap<string, bigint>, deltas: readonly PositionDelta[]): Map<string, bigint> {
  const next = new Map(current);
  for (const d of deltas) next.set(d.instrument, (next.get(d.instrument) ?? 0n) + d.quantity);
  return next;
}
