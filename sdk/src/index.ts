/**
 * `@legwork/sdk`: a TypeScript client for the Legwork options RFQ exchange.
 *
 * - {@link LegworkClient}: the trading WebSocket (JSON-RPC 2.0): sign-in, RFQ methods,
 *   notifications, reconnection with session resume.
 * - {@link LegworkHttp}: sign-in, the query API and the admin commands over HTTP.
 * - {@link Keypair}, {@link signQuote}, {@link signAccept}: wallets and the signed payloads.
 * - {@link verifyReceipt}, {@link verifyTranscript}: the exchange's signed fill receipts and RFQ transcripts.
 * - {@link parseRfqSigned}, {@link formatRfq}, ...: exact decimals in bigint micro-units, with
 *   the wallet and payload codecs re-exported from `@legwork/protocol` (the server's own).
 *
 * @packageDocumentation
 */
export {
  MICRO,
  I64_MAX,
  U64_MAX,
  type DecimalFault,
  DecimalError,
  parseRfqSigned,
  parseRfqUnsigned,
  // The SDK formats only what it sends, so out of range is an error here (the server's formatRfq writes any sum).
  formatRfqInRange as formatRfq,
  formatHttp,
  parseHttpDecimal,
  toRfqDecimal,
  isSmallOrderKey,
  parseWallet as decodeWallet,
  type AuditRow,
  type SignedAuditHead,
  verifyAuditAgainstHead,
  verifyAuditHeadSignature,
  encodeWallet,
  verifyEd25519 as verifySignature,
  signInMessage,
  QUOTE_PAYLOAD_SIZE,
  ACCEPT_PAYLOAD_SIZE,
  MAX_LEGS,
  DEFAULT_SERVICE_NAME,
  type PayloadLeg,
  type QuotePayloadFields,
  type AcceptPayloadFields,
  signingDomain,
  encodeQuotePayload,
  quoteId,
  encodeAcceptPayload,
  encodeBase64Signature as encodeSignatureBase64,
  decodeCanonicalBase64Signature as decodeSignatureBase64,
  RFQ_ERROR_REASONS,
  type RfqErrorReason,
} from '@legwork/protocol';
export * from './keys';
export * from './payloads';
export * from './errors';
export { type RateLimitRetryOptions, isRateLimited } from './rate-limit';
export * from './http';
export * from './client';
export * from './receipts';
export * from './transcript';
export { NoBestQuoteError, bestQuote, type AcceptBestOptions, type AcceptedBest, type CheckedTranscript } from './competition';
export * from './enums';
export type * from './types';
