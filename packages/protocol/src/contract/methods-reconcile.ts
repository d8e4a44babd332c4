import { declareMethod } from './declaration';
import { ref } from './json-schema';
import { integer, object, string, withDefault } from './params';

/**
 * Quotes a desk can reconcile (docs/spec/design.md section 19): a maker lists its own quotes to
 * learn the fate of one whose reply it lost. Competitive quotes (section 18) add their states.
 */

/** The states of a maker's quote in rfq.maker.quotes. */
export const MAKER_QUOTE_STATES = ['live', 'accepted', 'filled', 'failed', 'traded_away', 'replaced', 'cancelled', 'expired'] as const;
export type MakerQuoteState = (typeof MAKER_QUOTE_STATES)[number];

/** Page size of rfq.maker.quotes. */
export const MAX_QUOTES_PAGE = 500;
export const DEFAULT_QUOTES_PAGE = 100;

export const MAKER_QUOTE_SCHEMAS = {
  MakerQuoteState: { type: 'string', enum: MAKER_QUOTE_STATES },
  MakerQuote: {
    type: 'object',
    properties: {
      quote_id: ref('QuoteId'),
      rfq_id: ref('RfqId'),
      quote_nonce: { type: 'string', pattern: '^[1-9][0-9]*$' },
      bid: ref('RfqSignedDecimal'),
      ask: ref('RfqSignedDecimal'),
      issued_at: ref('UnixSeconds'),
      expires_at: ref('UnixSeconds'),
      received_at_ms: { type: 'integer', minimum: 0, description: 'Unix milliseconds when the exchange took the quote' },
      state: ref('MakerQuoteState'),
    },
    required: ['quote_id', 'rfq_id', 'quote_nonce', 'bid', 'ask', 'issued_at', 'expires_at', 'received_at_ms', 'state'],
    additionalProperties: false,
    description:
      "One of the caller's quotes (rfq.maker.quotes). A seed quote is live while its RFQ is quoted and its expires_at has not passed, accepted while the RFQ is accepted or submitting, then filled or failed; expired when the RFQ expired or was cancelled",
  },
} as const;

const QUOTE_ID = string({ ref: 'QuoteId', pattern: /^[0-9a-f]{64}$/, invalid: '{path} must be 64 lowercase hex characters' });

export const RECONCILE_METHODS = {
  'rfq.maker.quotes': declareMethod({
    dialect: 'rfq',
    access: { kind: 'account', role: 'quoter' },
    mode: 'read',
    summary: "The caller's own quotes, newest first (quoter role)",
    description:
      'state "live" (default) lists the quotes that can still be accepted, "all" every quote the caller gave that is still kept (as long as its RFQ). after: the next_cursor of the page before (a quote_id of the caller); a quote no longer kept is RFQ_NOT_FOUND.',
    params: object({
      state: withDefault(string({ enum: ['live', 'all'] as const, invalid: '{path} must be live or all, got {value}' }), 'live'),
      after: withDefault(QUOTE_ID, null),
      limit: withDefault(
        integer({ minimum: 1, maximum: MAX_QUOTES_PAGE, invalid: `{path} must be an integer from 1 to ${MAX_QUOTES_PAGE}`, description: 'Page size' }),
        DEFAULT_QUOTES_PAGE,
      ),
    }),
    result: {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref('MakerQuote') },
        next_cursor: { ...ref('QuoteId'), description: "The last item's quote_id when more remain" },
      },
      required: ['items'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND'],
  }),
};
