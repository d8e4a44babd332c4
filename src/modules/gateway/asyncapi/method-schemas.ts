import type { RfqErrorCode } from '../../../common/errors/app-error';
import type { RpcErrorName } from '../json-rpc';
import type { RpcMethodName } from '../rpc-method';
import { type JsonSchema, ref } from './schemas';

/** What /asyncapi.json says about one JSON-RPC method. */
export interface MethodSchema {
  summary: string;
  description?: string;
  /** JSON Schema of `params` (an object; absent params read as `{}`). */
  params: JsonSchema;
  /** JSON Schema of `result`. */
  result: JsonSchema;
  /**
   * The failures the method answers with besides the ones every call may get (-32603 for public/*;
   * RFQ_NOT_ENABLED, RFQ_WRONG_ROLE, RFQ_RATE_LIMITED, RFQ_VALUE_OUT_OF_RANGE, RFQ_NOT_READY for rfq.*).
   */
  errors: RpcErrorName[] | RfqErrorCode[];
}

const params = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const NO_PARAMS = params({});
/** design.md 13: replay the stored events after `since`, then go live. */
const SUBSCRIBE_PARAMS = params({ since: { type: 'integer', minimum: 0, description: 'The last account_seq received: the stored events after it are sent first, then the live ones (kept 7 days)' } });
const page = { type: 'integer', minimum: 1, maximum: 100, default: 100, description: 'Page size' };
const subscribed = (channel: string): JsonSchema => ({
  type: 'object',
  properties: { channel: { const: channel }, subscribed: { const: true }, account_seq: { type: 'integer', minimum: 0, description: "The account's latest account_seq at the time of the call" } },
  required: ['channel', 'subscribed', 'account_seq'],
  additionalProperties: false,
});
const itemsPage = (item: string): JsonSchema => ({
  type: 'object',
  properties: { items: { type: 'array', items: ref(item) }, next_cursor: { ...ref('RfqId'), description: "The last item's rfq_id when more remain" } },
  required: ['items'],
  additionalProperties: false,
});

/**
 * One entry per method of RPC_METHODS (the type makes a missing entry a compile error, and the
 * e2e test fails for a registered method without one). Sources: interface.md 4.2 and design.md
 * sections 3 to 5.
 */
export const METHOD_SCHEMAS: Record<RpcMethodName, MethodSchema> = {
  'public/get_nonce': {
    summary: 'Get a sign-in nonce for a wallet',
    description: 'Same as POST /v1/auth/nonce. Valid 300 s, single use; a fourth live nonce evicts the oldest. 10 requests per minute per client IP (HTTP and WebSocket together).',
    params: params({ wallet: ref('Wallet') }, ['wallet']),
    result: ref('NonceChallenge'),
    errors: ['INVALID_PARAMS', 'RATE_LIMITED'],
  },
  'public/auth': {
    summary: 'Sign in with the wallet signature of the nonce message',
    description: 'The connection is signed in as the wallet from then on. The nonce is consumed by the attempt, whatever its outcome.',
    params: params(
      {
        wallet: ref('Wallet'),
        signature: { type: 'string', description: 'base58 of the 64-byte ed25519 signature of `message`' },
        message: { type: 'string', description: 'The exact signed text returned with the nonce' },
      },
      ['wallet', 'signature', 'message'],
    ),
    result: ref('SignInResult'),
    errors: ['INVALID_PARAMS', 'AUTH_INVALID_SIGNATURE', 'AUTH_INVALID_NONCE'],
  },
  'public/session_resume': {
    summary: 'Resume a session with a session token, without signing again',
    description: 'Roles are read again from the database (a revoked role is gone on resume).',
    params: params({ session_token: { type: 'string' } }, ['session_token']),
    result: ref('SignInResult'),
    errors: ['INVALID_PARAMS', 'SESSION_INVALID'],
  },
  'public/get_market_config': {
    summary: 'Service, signing domain, assets with index prices and the RFQ limits',
    params: NO_PARAMS,
    result: ref('MarketConfig'),
    errors: ['INVALID_PARAMS'],
  },
  'public/get_instruments': {
    summary: 'Listed instruments with marks',
    description: 'Default: the open instruments of every asset, ordered by asset, expiry, strike, kind.',
    params: params({ asset: ref('Asset'), expiry: ref('UnixSeconds'), include_settled: { type: 'boolean', default: false } }),
    result: {
      type: 'object',
      properties: { instruments: { type: 'array', items: ref('InstrumentRecord') } },
      required: ['instruments'],
      additionalProperties: false,
    },
    errors: ['INVALID_PARAMS'],
  },
  'rfq.create': {
    summary: 'Open a request for quote on a 1 to 13 leg strategy (taker role)',
    description:
      'Idempotent per (account, client_ref): the same legs in the same order return the existing RFQ whatever its state; other legs are RFQ_CANONICAL_MISMATCH. Legs share one underlying and one expiry and are unique by symbol and by terms.',
    params: params(
      {
        client_ref: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'Idempotency key per account (lowercase UUID)' },
        legs: { type: 'array', items: ref('RfqLeg'), minItems: 1, maxItems: 13 },
      },
      ['client_ref', 'legs'],
    ),
    result: ref('RfqView'),
    errors: ['RFQ_PRECISION_UNSUPPORTED', 'RFQ_SIZE_INVALID', 'RFQ_INVALID_INSTRUMENT', 'RFQ_CANONICAL_MISMATCH', 'RFQ_OPEN_LIMIT'],
  },
  'rfq.accept': {
    summary: "Accept one side of the quote with the taker's Ed25519 signature",
    description: 'Signature over the 105-byte StrategyAcceptPayload. The fill runs after the reply; its outcome arrives on the `rfq` channel.',
    params: params(
      {
        quote_id: ref('QuoteId'),
        side: ref('Side'),
        expires_at: { ...ref('UnixSeconds'), description: "At or before the quote's expires_at" },
        taker_signature: ref('Ed25519Base64'),
      },
      ['quote_id', 'side', 'expires_at', 'taker_signature'],
    ),
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), quote_id: ref('QuoteId'), side: ref('Side'), state: { const: 'accepted' } },
      required: ['rfq_id', 'quote_id', 'side', 'state'],
      additionalProperties: false,
    },
    errors: [
      'RFQ_NOT_FOUND',
      'RFQ_STATE_CONFLICT',
      'RFQ_QUOTE_EXPIRED',
      'RFQ_INVALID_SIGNATURE',
      'RFQ_INVALID_INSTRUMENT',
      'RFQ_TAKER_UNFUNDED',
      'RFQ_BALANCE_INSUFFICIENT',
    ],
  },
  'rfq.get': {
    summary: "One of the caller's live-book RFQs",
    params: params({ rfq_id: ref('RfqId') }, ['rfq_id']),
    result: ref('RfqView'),
    errors: ['RFQ_NOT_FOUND'],
  },
  'rfq.list': {
    summary: "Page through the caller's live-book RFQs, newest first",
    description: 'The live book keeps an RFQ until 24 h after it ended; settled history is GET /query/rfq-fills.',
    params: params({ states: { type: 'array', items: ref('RfqState'), uniqueItems: true }, cursor: ref('RfqId'), limit: page }),
    result: itemsPage('RfqView'),
    errors: [],
  },
  'rfq.subscribe': {
    summary: "Subscribe this connection to the taker's RFQ events (channel rfq)",
    params: SUBSCRIBE_PARAMS,
    result: subscribed('rfq'),
    errors: [],
  },
  'rfq.maker.poll': {
    summary: 'Page through pending RFQs as a quoter, oldest first (not the caller’s own)',
    params: params({ cursor: ref('RfqId'), limit: page }),
    result: itemsPage('OpenRfq'),
    errors: [],
  },
  'rfq.maker.respond': {
    summary: 'Quote the whole package with a signed two-sided quote (first quote wins)',
    description:
      'bid <= ask; issued_at < expires_at, expires_at - issued_at <= 3600, expires_at <= max_quote_expires_at (never clamped), issued_at <= now + 5. quote_nonce strictly increases per maker account; a failed respond consumes no nonce. Signature over the 1,050-byte StrategyQuotePayload.',
    params: params(
      {
        rfq_id: ref('RfqId'),
        quote_nonce: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'Canonical decimal u64' },
        bid: { ...ref('RfqSignedDecimal'), description: 'What the maker pays for the package when the taker sells' },
        ask: { ...ref('RfqSignedDecimal'), description: 'What the maker receives for the package when the taker buys' },
        issued_at: ref('UnixSeconds'),
        expires_at: ref('UnixSeconds'),
        maker_signature: ref('Ed25519Base64'),
      },
      ['rfq_id', 'quote_nonce', 'bid', 'ask', 'issued_at', 'expires_at', 'maker_signature'],
    ),
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), quote_id: ref('QuoteId'), state: { const: 'quoted' } },
      required: ['rfq_id', 'quote_id', 'state'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT', 'RFQ_PRECISION_UNSUPPORTED', 'RFQ_QUOTE_EXPIRED', 'RFQ_INVALID_SIGNATURE', 'RFQ_INVALID_INSTRUMENT'],
  },
  'rfq.maker.decline': {
    summary: 'Decline a pending RFQ with a reason',
    params: params(
      {
        rfq_id: ref('RfqId'),
        reason: { type: 'string', enum: ['unlisted_instrument', 'near_expiry', 'size_limit', 'stale_data', 'low_confidence', 'queue_overflow'] },
      },
      ['rfq_id', 'reason'],
    ),
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), state: { const: 'declined' }, decline_reason: { type: 'string' } },
      required: ['rfq_id', 'state', 'decline_reason'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT'],
  },
  'rfq.maker.subscribe': {
    summary: "Subscribe this connection to the quoters' RFQ events (channel rfq_maker)",
    params: SUBSCRIBE_PARAMS,
    result: subscribed('rfq_maker'),
    errors: [],
  },
};
