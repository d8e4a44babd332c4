/**
 * Funding requirement of one accept side on a frozen view (docs/spec/interface.md 2.3, docs/spec/design.md section 6):
 *   buy:  package_cash_delta = -ask, the taker receives each leg's quantity;
 *   sell: package_cash_delta = +bid, the taker receives each leg's negated quantity;
 *   cash_debit = max(-package_cash_delta, 0); fee = sum of leg fees; max_fee = fee + tolerance, rounded up;
 *   writer = after the fill the taker is short at least one leg's instrument;
 *   lock_increase = writer ? max(post_fill_locked - current_locked, 0) : 0;
 *   required = cash_debit + max_fee + lock_increase;
 *   estimate = writer && !anchored; funded = !estimate && anchored && free_balance >= required.
 */
import { type Side, formatRfq } from '@legwork/protocol';
import type { OptionKind } from '../../instruments/domain/symbol';
import { type Bps, maxFee, packageFee } from './fees';
import { type IndexByAsset, type LockPosition, indexOf, portfolioLock } from './lock';

/** The side a taker accepts: the wire's `Side`. */
export type AcceptSide = Side;

export interface FundingLeg {
  asset: string;
  expiry: number;
  strike: bigint;
  kind: OptionKind;
  /** signed micro-contracts in taker-buy orientation */
  quantity: bigint;
  /** index price of the leg's asset, micro-units */
  index: bigint;
  /** mark price of the leg, micro-units */
  mark: bigint;
}

export interface FundingInput {
  anchored: boolean;
  /** max(available, 0) (freeBalanceOf); null when the account has no ledger row */
  freeBalance: bigint | null;
  currentLocked: bigint;
  /** the taker's open positions */
  positions: readonly LockPosition[];
  legs: readonly FundingLeg[];
  /** the quote's prices; null: that side is not computed (its requirement is null) */
  bid: bigint | null;
  ask: bigint | null;
  takerFeeBps: Bps;
  tradeFeeCapBps: Bps;
  takerFeeToleranceBps: Bps;
  lockUpsideBps: Bps;
  indexByAsset: IndexByAsset;
}

export interface FundingRequirement {
  required: bigint;
  estimate: boolean;
  funded: boolean;
  package_cash_delta: bigint;
  cash_debit: bigint;
  fee: bigint;
  max_fee: bigint;
  writer: boolean;
  lock_increase: bigint;
  post_fill_locked: bigint;
}

export interface FundingSides {
  anchored: boolean;
  freeBalance: bigint | null;
  buy: FundingRequirement | null;
  sell: FundingRequirement | null;
}

/** Wire forms (RfqFundingRequirement, RfqTakerFunding): decimals as RFQ strings. */
type RfqFundingRequirement = {
  [K in keyof FundingRequirement]: FundingRequirement[K] extends bigint ? string : FundingRequirement[K];
};
export interface RfqTakerFunding {
  anchored: boolean;
  free_balance: string | null;
  buy: RfqFundingRequirement | null;
  sell: RfqFundingRequirement | null;
}

/**
 * The funding view's `free_balance` of a ledger row (docs/spec/design.md section 12): `max(available, 0)`,
 * null when the account has no row. An under-collateralized account's is zero, so any accept
 * that needs funds is refused until a deposit restores it.
 */
export function freeBalanceOf(row: { total: bigint; locked: bigint } | null): bigint | null {
  if (!row) return null;
  return row.total > row.locked ? row.total - row.locked : 0n;
}

const termsKey = (p: Pick<LockPosition, 'asset' | 'expiry' | 'strike' | 'kind'>) => `${p.asset}|${p.expiry}|${p.strike}|${p.kind}`;

export function fundingRequirement(view: FundingInput, side: AcceptSide): FundingRequirement {
  const price = side === 'buy' ? view.ask : view.bid;
  if (price === null) throw new RangeError(`no ${side === 'buy' ? 'ask' : 'bid'} to fund`);
  const package_cash_delta = side === 'buy' ? -price : price;
  const cash_debit = package_cash_delta < 0n ? -package_cash_delta : 0n;

  const fee = packageFee(view.legs, view);
  const max_fee = maxFee(fee, view.takerFeeToleranceBps);

  const fills: LockPosition[] = view.legs.map((l) => ({
    asset: l.asset,
    expiry: l.expiry,
    strike: l.strike,
    kind: l.kind,
    quantity: side === 'buy' ? l.quantity : -l.quantity,
  }));
  const after = [...view.positions, ...fills];
  const net = new Map<string, bigint>();
  for (const p of after) net.set(termsKey(p), (net.get(termsKey(p)) ?? 0n) + p.quantity);
  const writer = fills.some((f) => (net.get(termsKey(f)) ?? 0n) < 0n);

  const index = new Map<string, bigint>();
  for (const p of after) {
    const known = indexOf(view.indexByAsset, p.asset);
    if (known !== undefined) index.set(p.asset, known);
  }
  for (const l of view.legs) if (!index.has(l.asset)) index.set(l.asset, l.index);
  const post_fill_locked = portfolioLock(after, { indexByAsset: index, lockUpsideBps: view.lockUpsideBps });
  const grows = post_fill_locked - view.currentLocked;
  const lock_increase = writer && grows > 0n ? grows : 0n;

  const required = cash_debit + max_fee + lock_increase;
  const estimate = writer && !view.anchored;
  const funded = !estimate && view.anchored && view.freeBalance !== null && view.freeBalance >= required;
  return { required, estimate, funded, package_cash_delta, cash_debit, fee, max_fee, writer, lock_increase, post_fill_locked };
}

/** Both sides, bigint form, for the server's own checks. */
export function fundingSides(view: FundingInput): FundingSides {
  return {
    anchored: view.anchored,
    freeBalance: view.freeBalance,
    buy: view.ask === null ? null : fundingRequirement(view, 'buy'),
    sell: view.bid === null ? null : fundingRequirement(view, 'sell'),
  };
}

function toWireRequirement(r: FundingRequirement): RfqFundingRequirement {
  return {
    required: formatRfq(r.required),
    estimate: r.estimate,
    funded: r.funded,
    package_cash_delta: formatRfq(r.package_cash_delta),
    cash_debit: formatRfq(r.cash_debit),
    fee: formatRfq(r.fee),
    max_fee: formatRfq(r.max_fee),
    writer: r.writer,
    lock_increase: formatRfq(r.lock_increase),
    post_fill_locked: formatRfq(r.post_fill_locked),
  };
}

/** The wire form (RfqTakerFunding, `error.data.details` of RFQ_TAKER_UNFUNDED). */
export function toWireFunding(sides: FundingSides): RfqTakerFunding {
  return {
    anchored: sides.anchored,
    free_balance: sides.freeBalance === null ? null : formatRfq(sides.freeBalance),
    buy: sides.buy && toWireRequirement(sides.buy),
    sell: sides.sell && toWireRequirement(sides.sell),
  };
}

export function fundingView(view: FundingInput): RfqTakerFunding {
  return toWireFunding(fundingSides(view));
}
