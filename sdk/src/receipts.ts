/**
 * Fill receipts and the journal (docs/spec/design.md sections 14 and 16; docs/receipts.md): the
 * checks are `@legwork/protocol`'s, beside the exchange's encoder, so that the SDK, the tools and
 * the operator console in the browser check a receipt the one same way.
 */
export {
  type DecodedReceipt,
  RECEIPT_SIZE,
  type ReceiptVersion,
  ReceiptError,
  decodeReceipt,
  type Receipt,
  type ExchangeKeyInfo,
  type FillToMatch,
  type VerifyReceiptOptions,
  verifyReceipt,
  takerCommitmentOf,
  isTakerOf,
  type TakerProof,
  takerProof,
  verifyTakerProof,
  type JournalRow,
  type JournalCheck,
  verifyJournalSegment,
  receiptInJournal,
} from '@legwork/protocol';
