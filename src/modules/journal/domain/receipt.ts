import type { ReceiptKind } from '@legwork/protocol';

/**
 * Receipts as the exchange serves them. The 1,072-byte StrategyFillReceipt itself (docs/spec/design.md
 * section 14: encoding, hash, key id) is `@legwork/protocol`'s, which the SDK decodes with.
 */

/** The wire form of a receipt (section 14). */
export interface ReceiptView {
  journal_seq: number;
  kind: ReceiptKind;
  payload: string;
  hash: string;
  key_id: string;
  signature: string;
  /** The taker's salt, hex (docs/spec/design.md 16): in the taker's copies only, never the maker's. */
  taker_salt?: string;
}
