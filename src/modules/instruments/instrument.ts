import { formatRfq } from '@legwork/protocol';
import type { OptionKind } from './domain/symbol';

/** An instrument as held in the database and in the engine's in-memory view. */
export interface Instrument {
  symbol: string;
  asset: string;
  /** micro-units */
  strike: bigint;
  kind: OptionKind;
  /** unix seconds */
  expiry: number;
  paused: boolean;
  settled: boolean;
  settlementPrice: bigint | null;
  /** unix seconds */
  createdAt: number;
  /** Unix seconds the round settled (null: open), when the row was read with it: the view's sweep. */
  settledAt?: number | null;
}

/**
 * docs/spec/design.md section 17: an instance holds the instruments of open rounds and of rounds
 * settled less than this long ago; older settled rounds are read from the database when asked for.
 */
const SETTLED_ROUNDS_HELD_SECONDS = 7 * 86_400;

/** The oldest `settled_at` (unix seconds) a round may have and still be held in memory at `nowSeconds`. */
export function heldSince(nowSeconds: number): number {
  return nowSeconds - SETTLED_ROUNDS_HELD_SECONDS;
}

/** docs/spec/design.md section 2: open = not settled; tradable = open, not paused, expiry in the future. */
export function isTradable(instrument: Instrument, nowSeconds: number): boolean {
  return !instrument.settled && !instrument.paused && instrument.expiry > nowSeconds;
}

/** An expiration round: every instrument at `expiry`, of `asset` when given (null: every asset). */
export interface Round {
  asset: string | null;
  /** unix seconds */
  expiry: number;
}

/** Which instruments a listing shows. */
export interface InstrumentFilter {
  asset?: string;
  expiry?: number;
  /** Default false: open (unsettled) instruments only. */
  includeSettled?: boolean;
}

/** The instrument record of the wire (docs/spec/design.md section 2), HTTP and `public/get_instruments` alike. */
export interface InstrumentRecord {
  symbol: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: number;
  paused: boolean;
  settled: boolean;
  settlement_price: string | null;
  created_at: number;
}

export function instrumentRecord(i: Instrument): InstrumentRecord {
  return {
    symbol: i.symbol,
    asset: i.asset,
    strike: formatRfq(i.strike),
    kind: i.kind,
    expiry: i.expiry,
    paused: i.paused,
    settled: i.settled,
    settlement_price: i.settlementPrice === null ? null : formatRfq(i.settlementPrice),
    created_at: i.createdAt,
  };
}

/** The listing order: asset, expiry, strike, then kind ("call" before "put"). */
export function compareInstruments(a: Instrument, b: Instrument): number {
  if (a.asset !== b.asset) return a.asset < b.asset ? -1 : 1;
  if (a.expiry !== b.expiry) return a.expiry - b.expiry;
  if (a.strike !== b.strike) return a.strike < b.strike ? -1 : 1;
  if (a.kind !== b.kind) return a.kind === 'call' ? -1 : 1;
  return 0;
}

/** Does the instrument belong to the round (every asset when the round names none)? */
export function inRound(i: Instrument, round: Round): boolean {
  return i.expiry === round.expiry && (round.asset === null || i.asset === round.asset);
}
