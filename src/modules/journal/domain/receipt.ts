import type { Receipt } from '@legwork/protocol';

/**
 * Receipts as the exchange serves them. The 1,072-byte StrategyFillReceipt itself (docs/spec/design.md
 * section 14: encoding, hash, key id) and its wire form are `@legwork/protocol`'s, which the SDK and
 * the console check receipts with.
 */

/** The wire form of a receipt (section 14); `taker_salt` (section 16) in the taker's copies only, never the maker's. */
export type ReceiptView = Receipt;
