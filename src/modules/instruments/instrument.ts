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
}

/** design.md section 2: open = not settled; tradable = open, not paused, expiry in the future. */
export function isTradable(instrument: Instrument, nowSeconds: number): boolean {
  return !instrument.settled && !instrument.paused && instrument.expiry > nowSeconds;
}
