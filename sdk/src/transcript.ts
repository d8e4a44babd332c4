/**
 * The signed RFQ transcript (docs/spec/design.md section 18): the exchange-signed record of every
 * quote a competitive RFQ received and how each ended, a taker's proof of what it was offered.
 * Built and checked by `@legwork/protocol`, as the exchange signs it; check a saved
 * `rfq.transcript` result with {@link verifyTranscript} and the exchange key (base58, bytes, or
 * `GET /v1/exchange/keys`).
 */
export {
  type TranscriptEnd,
  type TranscriptQuote,
  type TranscriptAccepted,
  type RfqTranscript,
  type SignedTranscript,
  type TranscriptFault,
  type TranscriptCheck,
  type TranscriptKey,
  TRANSCRIPT_KIND,
  TRANSCRIPT_VERSION,
  transcriptPayload,
  transcriptHash,
  verifyTranscript,
  canonicalJson,
} from '@legwork/protocol';
