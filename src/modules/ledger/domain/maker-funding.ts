/**
 * The maker's side of an accept (docs/spec/design.md section 4: "maker cannot fund its side:
 * RFQ_BALANCE_INSUFFICIENT"). The interface gives the taker's formula only; the maker's mirrors it
 * without a fee (makers pay none):
 *
 *   package_cash_delta = buy: +ask, sell: -bid        (the maker's own cash movement before fees)
 *   cash_debit         = max(-package_cash_delta, 0)
 *   post_fill_locked   = lock of the maker's open positions after the fill
 *   lock_increase      = max(post_fill_locked - current_locked, 0)   (written or not)
 *   required           = cash_debit + lock_increase
 *   funded             = anchored && free_balance >= required
 *
 * An under-collateralized maker (`available < 0`, docs/spec/design.md section 12) is funded instead when
 * the fill does not lower its `available`: `package_cash_delta - (post_fill_locked - current_locked) >= 0`
 * (a fill that releases more lock than it costs goes through; any other is refused).
 *
 * Premium the maker receives is not counted towards its lock (as for the taker), and the lock
 * increase is not gated on the maker writing: a quote that only reprices existing shorts at a new
 * index still has to be covered, so the fill can never leave the maker's free balance below zero.
 */
import type { AcceptSide, FundingLeg } from './funding';
import type { Bps } from './fees';
import { orientation } from './fold';
import { type IndexByAsset, type LockPosition, indexOf, portfolioLock } from './lock';

export interface MakerFundingInput {
  anchored: boolean;
  /** available = total - locked (signed); null when the maker has no ledger row */
  freeBalance: bigint | null;
  currentLocked: bigint;
  /** the maker's open positions */
  positions: readonly LockPosition[];
  legs: readonly FundingLeg[];
  bid: bigint;
  ask: bigint;
  lockUpsideBps: Bps;
  indexByAsset: IndexByAsset;
}

export interface MakerRequirement {
  required: bigint;
  funded: boolean;
  package_cash_delta: bigint;
  cash_debit: bigint;
  lock_increase: bigint;
  post_fill_locked: bigint;
}

/** The index of every asset in `positions`, the legs' own index where the map has none. */
export function lockIndex(positions: readonly LockPosition[], legs: readonly FundingLeg[], indexByAsset: IndexByAsset): Map<string, bigint> {
  const index = new Map<string, bigint>();
  for (const p of positions) {
    const known = indexOf(indexByAsset, p.asset);
    if (known !== undefined) index.set(p.asset, known);
  }
  for (const l of legs) if (!index.has(l.asset)) index.set(l.asset, l.index);
  return index;
}

/** The positions a fill adds to one account, in the taker's leg order. */
export function fillPositions(legs: readonly FundingLeg[], role: 'taker' | 'maker', side: AcceptSide): LockPosition[] {
  const sign = orientation(role, side);
  return legs.map((l) => ({ asset: l.asset, expiry: l.expiry, strike: l.strike, kind: l.kind, quantity: sign * l.quantity }));
}

export function makerRequirement(view: MakerFundingInput, side: AcceptSide): MakerRequirement {
  const package_cash_delta = side === 'buy' ? view.ask : -view.bid;
  const cash_debit = package_cash_delta < 0n ? -package_cash_delta : 0n;
  const after = [...view.positions, ...fillPositions(view.legs, 'maker', side)];
  const post_fill_locked = portfolioLock(after, { indexByAsset: lockIndex(after, view.legs, view.indexByAsset), lockUpsideBps: view.lockUpsideBps });
  const grows = post_fill_locked - view.currentLocked;
  const lock_increase = grows > 0n ? grows : 0n;
  const required = cash_debit + lock_increase;
  const free = view.freeBalance;
  const funded = view.anchored && free !== null && (free < 0n ? package_cash_delta - (post_fill_locked - view.currentLocked) >= 0n : free >= required);
  return { required, funded, package_cash_delta, cash_debit, lock_increase, post_fill_locked };
}
