import { ref } from './json-schema';

/**
 * The values of competitive RFQs (docs/spec/design.md 18): the competition of the RFQ view, its
 * live quotes and best, the transcript and its quotes, and the makers' quote-end events. Spread
 * into VIEW_SCHEMAS (views.ts).
 */
const nullable = <const S>(schema: S) => ({ oneOf: [schema, { type: 'null' }] }) as const;
function object<
  const P extends Record<string, object>,
  const R extends readonly (keyof P & string)[] = ReadonlyArray<keyof P & string>,
  const E extends object = Record<never, never>,
>(properties: P, required?: R, extra?: E): { type: 'object'; properties: P; required: R; additionalProperties: false } & E {
  return { type: 'object', properties, required: required ?? (Object.keys(properties) as unknown as R), additionalProperties: false, ...(extra as E) };
}

export const COMPETITION_SCHEMAS = {
  RfqCompetition: object({
    makers: { ...nullable({ type: 'array', items: ref('Wallet') }), description: "The taker's panel in the order given; null: every quoter" },
  }),
  RfqLiveQuote: object(
    {
      quote_id: ref('QuoteId'),
      maker: { ...ref('Wallet'), description: "The maker's wallet (to rebuild and check the signed payload)" },
      quote_nonce: { type: 'string', pattern: '^[1-9][0-9]*$' },
      bid: ref('RfqSignedDecimal'),
      ask: ref('RfqSignedDecimal'),
      issued_at: ref('UnixSeconds'),
      expires_at: ref('UnixSeconds'),
      maker_signature: ref('Ed25519Base64'),
      received_at_ms: { type: 'integer', minimum: 0, description: 'Unix milliseconds the exchange took the quote' },
    },
    undefined,
    { description: 'A live quote of a competitive RFQ: the quote object plus when it was received' },
  ),
  RfqBest: object({
    bid: { ...nullable(ref('QuoteId')), description: 'The highest live bid (ties to the earlier); null when none' },
    ask: { ...nullable(ref('QuoteId')), description: 'The lowest live ask (ties to the earlier); null when none' },
  }),
  QuoteEnd: { type: 'string', enum: ['accepted', 'traded_away', 'replaced', 'cancelled', 'expired'] },
  TranscriptQuote: object({
    quote_id: ref('QuoteId'),
    maker: ref('Wallet'),
    quote_nonce: { type: 'string', pattern: '^[1-9][0-9]*$' },
    bid: ref('RfqSignedDecimal'),
    ask: ref('RfqSignedDecimal'),
    issued_at: ref('UnixSeconds'),
    expires_at: ref('UnixSeconds'),
    received_at_ms: { type: 'integer', minimum: 0 },
    ended_at_ms: { type: 'integer', minimum: 0 },
    end: ref('QuoteEnd'),
  }),
  RfqTranscript: object(
    {
      kind: { const: 'legwork.rfq_transcript' },
      version: { const: 1 },
      service: { type: 'string' },
      rfq_id: ref('RfqId'),
      legs: { type: 'array', items: ref('RfqLeg'), minItems: 1, maxItems: 13 },
      created_at: ref('UnixSeconds'),
      closed_at_ms: { type: 'integer', minimum: 0 },
      makers: nullable({ type: 'array', items: ref('Wallet') }),
      quotes: { type: 'array', items: ref('TranscriptQuote') },
      accepted: nullable(
        object({
          quote_id: ref('QuoteId'),
          side: ref('Side'),
          price: ref('RfqSignedDecimal'),
          at_ms: { type: 'integer', minimum: 0 },
          best: { type: 'boolean' },
        }),
      ),
    },
    undefined,
    { description: 'What a competitive RFQ was offered (design.md 18): every quote it received, in order, with its end' },
  ),
  RfqTranscriptResult: object({
    transcript: ref('RfqTranscript'),
    payload: { type: 'string', contentEncoding: 'base64', description: 'UTF-8 of the transcript as RFC 8785 canonical JSON' },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the payload' },
    key_id: { type: 'string', pattern: '^[0-9a-f]{16}$', description: 'the signing key of GET /v1/exchange/keys' },
    signature: { type: 'string', description: 'base64 ed25519 signature of the payload by the exchange key' },
  }),
  MakerStats: object(
    {
      rfqs: { type: 'integer', minimum: 0, description: 'Competitive RFQs that reached the maker (its panel, or every quoter) in the last 7 days' },
      quoted: { type: 'integer', minimum: 0, description: 'Of those, the RFQs it quoted at least once' },
      median_response_ms: {
        ...nullable({ type: 'integer', minimum: 0 }),
        description: "Median milliseconds from the RFQ's created to the maker's first quote on it; null when it quoted none",
      },
      cancelled: {
        type: 'integer',
        minimum: 0,
        description: 'Quotes the maker withdrew before their time (cancel_quote, cancel_quotes, a decline, a disconnect)',
      },
      replaced: { type: 'integer', minimum: 0, description: 'Quotes the maker replaced with a new one' },
      won: { type: 'integer', minimum: 0, description: 'Its quotes that were accepted' },
    },
    undefined,
    { description: "A maker's last 7 days of competitive RFQs (design.md 18 'Choosing a panel')" },
  ),
  DirectoryMaker: object({
    wallet: ref('Wallet'),
    name: { ...nullable({ type: 'string' }), description: 'The name the maker set; null when it set none' },
    stats: ref('MakerStats'),
  }),
  QuoteEndEvent: object({ rfq_id: ref('RfqId'), quote_id: ref('QuoteId') }, undefined, {
    description: "A maker's competitive quote that ended without a fill: no price, no winner, no taker",
  }),
} as const;
