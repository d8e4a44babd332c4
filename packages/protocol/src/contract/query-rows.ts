import type { Receipt } from '../receipt-check';
import type { OptionKind, Side } from './enums';

/**
 * The rows of the HTTP query API (docs/spec/design.md sections 6 and 8) as TypeScript types: the
 * server builds them, the SDK returns them, the console reads them. Amounts are 8-dp decimal
 * strings (the HTTP form); times are unix seconds unless named `updated_at` (ISO-8601).
 */

/** A balance row (`GET /query/balances`): `available = total - locked`. */
export interface BalanceRow {
  account_id: number;
  currency: 'USDC';
  available: string;
  locked: string;
  total: string;
  updated_at: string;
}

/** A net RFQ position row (`GET /query/rfq-positions`). */
export interface RfqPositionRow {
  account_id: number;
  instrument: string;
  asset: string;
  strike: string;
  kind: OptionKind;
  expiry: number;
  settled: boolean;
  quantity: string;
  /** Average price per contract over the fills that made the position; null when none can be given. */
  average_price: string | null;
  updated_at: string;
}

/** A fill row (`GET /query/rfq-fills`), of the account as taker or as maker. */
export interface RfqFillRow {
  fill_id: string;
  rfq_id: string;
  quote_id: string;
  role: 'taker' | 'maker';
  side: Side;
  legs: Array<{ instrument: string; quantity: string }>;
  price: string;
  fee: string;
  filled_at: number;
  reverted: boolean;
  /** The taker's copy carries `taker_salt` (docs/spec/design.md 16); the maker's is the receipt as signed. */
  receipt: Receipt | null;
  revert_receipt: Receipt | null;
}
