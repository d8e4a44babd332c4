/**
 * The fill's checks and the state it leaves, on one frozen view read inside the fill's
 * transaction (docs/spec/design.md section 5), as a pure function. In order:
 *
 * 1. the exact fee at current marks is at most the `max_fee` frozen at accept (RFQ_PRICE_TOLERANCE);
 * 2. the taker's funding requirement of the accepted side is funded (RFQ_TAKER_UNFUNDED);
 * 3. the maker's requirement is funded (RFQ_BALANCE_INSUFFICIENT, see maker-funding.ts);
 * 4. the ledger's final check: after the cash moves and both locks are recomputed, neither
 *    account's free balance (`total - locked`) is below zero, unless it was below zero before and
 *    the fill does not lower it (docs/spec/design.md section 12), and no total leaves the bigint range
 *    (RFQ_ATTESTATION_FAILED). The taker's formula does not count a lock that grows without the
 *    taker writing (its existing shorts repriced at a new index); this check does.
 *
 * The same module gives the revert's outcome (`revertOutcome`).
 */
import { I64_MAX, formatRfq } from '@legwork/protocol';
import type { RfqErrorCode } from '../../../common/errors/app-error';
import { type Bps, packageFee } from './fees';
import { type CashFlows, cashFlows, reverseCash } from './fold';
import type { Balance } from './balance';
import { type AcceptSide, type FundingLeg, freeBalanceOf, fundingRequirement } from './funding';
import { type IndexByAsset, type LockPosition, portfolioLock } from './lock';
import { fillPositions, lockIndex, makerRequirement } from './maker-funding';

/** One account's ledger row (null: never anchored) and open positions, read once. */
export interface AccountBook {
  balance: Balance | null;
  positions: readonly LockPosition[];
}

export interface RiskParams {
  takerFeeBps: Bps;
  tradeFeeCapBps: Bps;
  takerFeeToleranceBps: Bps;
  lockUpsideBps: Bps;
}

export interface FillCheckInput {
  side: AcceptSide;
  bid: bigint;
  ask: bigint;
  /** frozen at accept */
  maxFee: bigint;
  /** the legs at current marks, taker-buy orientation, the taker's order */
  legs: readonly FundingLeg[];
  taker: AccountBook;
  maker: AccountBook;
  indexByAsset: IndexByAsset;
  params: RiskParams;
}

export type FillDecision = { ok: true; fee: bigint; cash: CashFlows; taker: Balance; maker: Balance } | { ok: false; error: RfqErrorCode; message: string };

const refuse = (error: RfqErrorCode, message: string): FillDecision => ({ ok: false, error, message });

export function checkFill(input: FillCheckInput): FillDecision {
  const { side, legs, params } = input;
  const fee = packageFee(legs, params);
  if (fee > input.maxFee) {
    return refuse('RFQ_PRICE_TOLERANCE', `the fee at fill (${formatRfq(fee)}) is above the max_fee frozen at accept (${formatRfq(input.maxFee)})`);
  }
  const tb = input.taker.balance;
  const taker = fundingRequirement(
    {
      anchored: tb !== null,
      freeBalance: freeBalanceOf(tb),
      currentLocked: tb?.locked ?? 0n,
      positions: input.taker.positions,
      legs,
      bid: input.bid,
      ask: input.ask,
      ...params,
      indexByAsset: input.indexByAsset,
    },
    side,
  );
  if (!taker.funded) return refuse('RFQ_TAKER_UNFUNDED', `the taker cannot fund the ${side} side at fill: ${formatRfq(taker.required)} required`);
  const mb = input.maker.balance;
  const maker = makerRequirement(
    {
      anchored: mb !== null,
      freeBalance: mb ? mb.total - mb.locked : null,
      currentLocked: mb?.locked ?? 0n,
      positions: input.maker.positions,
      legs,
      bid: input.bid,
      ask: input.ask,
      lockUpsideBps: params.lockUpsideBps,
      indexByAsset: input.indexByAsset,
    },
    side,
  );
  if (!maker.funded) return refuse('RFQ_BALANCE_INSUFFICIENT', `the maker cannot fund its side at fill: ${formatRfq(maker.required)} required`);

  const cash = cashFlows({ side, bid: input.bid, ask: input.ask, fee });
  const takerAfter = { total: tb!.total + cash.taker, locked: taker.post_fill_locked };
  const makerAfter = { total: mb!.total + cash.maker, locked: maker.post_fill_locked };
  for (const [who, before, row] of [
    ['taker', tb!, takerAfter],
    ['maker', mb!, makerAfter],
  ] as const) {
    if (row.total > I64_MAX || row.total < -I64_MAX || row.locked > I64_MAX)
      return refuse('RFQ_ATTESTATION_FAILED', `the ${who}'s balance would leave the ledger's range`);
    // An account under water already (docs/spec/design.md section 12) may trade only towards the surface.
    const free = row.total - row.locked;
    if (free < 0n && free < before.total - before.locked) return refuse('RFQ_ATTESTATION_FAILED', `the fill would leave the ${who}'s free balance below zero`);
  }
  return { ok: true, fee, cash, taker: takerAfter, maker: makerAfter };
}

export interface RevertInput {
  side: AcceptSide;
  price: bigint;
  fee: bigint;
  /** the fill's legs with their terms, taker-buy orientation */
  legs: readonly Omit<FundingLeg, 'index' | 'mark'>[];
  taker: AccountBook;
  maker: AccountBook;
  feeAccount: Balance;
  indexByAsset: IndexByAsset;
  lockUpsideBps: Bps;
}

export type RevertDecision = { ok: true; cash: CashFlows; taker: Balance; maker: Balance; feeAccount: Balance } | { ok: false; message: string };

/**
 * Undoing a fill: the cash flows negated, both folds undone, both locks recomputed over what is
 * left. Refused when it would take an account's free balance below zero (and lower than it is):
 * the funds have been used since (a withdrawal, another fill the reverted position hedged).
 */
export function revertOutcome(input: RevertInput): RevertDecision {
  const { side } = input;
  const bid = side === 'sell' ? input.price : 0n;
  const ask = side === 'buy' ? input.price : 0n;
  const cash = reverseCash(cashFlows({ side, bid, ask, fee: input.fee }));
  const legs = input.legs.map((l) => ({ ...l, index: 0n, mark: 0n }));
  const relock = (book: AccountBook, role: 'taker' | 'maker') => {
    const undone = fillPositions(legs, role, side).map((p) => ({ ...p, quantity: -p.quantity }));
    const after = [...book.positions, ...undone];
    return portfolioLock(after, { indexByAsset: lockIndex(after, [], input.indexByAsset), lockUpsideBps: input.lockUpsideBps });
  };
  if (!input.taker.balance || !input.maker.balance) return { ok: false, message: 'a filled account has no ledger row' };
  const rows = {
    taker: { before: input.taker.balance, after: { total: input.taker.balance.total + cash.taker, locked: relock(input.taker, 'taker') } },
    maker: { before: input.maker.balance, after: { total: input.maker.balance.total + cash.maker, locked: relock(input.maker, 'maker') } },
    'fee account': { before: input.feeAccount, after: { total: input.feeAccount.total + cash.feeAccount, locked: input.feeAccount.locked } },
  };
  for (const [who, { before, after }] of Object.entries(rows)) {
    const free = after.total - after.locked;
    if (free < 0n && free < before.total - before.locked) {
      return { ok: false, message: `reverting would leave the ${who}'s free balance at ${formatRfq(free)}; its funds have been used since the fill` };
    }
  }
  return { ok: true, cash, taker: rows.taker.after, maker: rows.maker.after, feeAccount: rows['fee account'].after };
}
