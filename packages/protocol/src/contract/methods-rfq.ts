import { declareMethod } from './declaration';
import { DECLINE_REASONS, DEFAULT_PAGE, MAX_PAGE, MAX_RFQ_LEGS as MAX_LEGS, RFQ_STATES, SIDES, type SubscriptionChannel } from './enums';
import { ref } from './json-schema';
import { array, decimal, integer, object, optional, required, string, u64, withDefault } from './params';

/**
 * The rfq.* methods of the taker and the quoter (docs/spec/interface.md 4.2), with the error mapping
 * of docs/spec/design.md section 4: a param off the schema (missing, extra, wrong type, bad pattern)
 * is RFQ_VALUE_OUT_OF_RANGE naming the field; a decimal that is not canonical text is
 * RFQ_PRECISION_UNSUPPORTED (before the zero-quantity rule); legs not 1 to 13 or a zero quantity
 * is RFQ_SIZE_INVALID. Fields are checked in the order of the interface's tables.
 */

const TAKER = { dialect: 'rfq', access: { kind: 'account', role: 'taker' } } as const;
const QUOTER = { dialect: 'rfq', access: { kind: 'account', role: 'quoter' } } as const;
const ACCOUNT = { dialect: 'rfq', access: { kind: 'account' } } as const;

const RFQ_ID = string({ ref: 'RfqId', pattern: /^[0-9a-f]{32}$/, invalid: '{path} must be 32 lowercase hex characters' });
const CLIENT_REF = string({
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  invalid: '{path} must be a lowercase UUID',
  description: 'Idempotency key per account (lowercase UUID)',
});
/** RfqSignedDecimal: text off the pattern, a JSON number, an exponent, negative zero or more than 6 fractional digits is a precision fault. */
const SIGNED_DECIMAL = {
  ref: 'RfqSignedDecimal',
  invalid: '{path} must be a decimal string',
  precision: { code: 'RFQ_PRECISION_UNSUPPORTED', message: '{path} must be a canonical decimal string with at most 6 fractional digits, got {value}' },
  range: '{path} {value} is outside the signed 64-bit range of 6-decimal values',
} as const;
/** int64 unix seconds, held exactly in a JS number (safe integers only). */
const SECONDS = integer({ ref: 'UnixSeconds', invalid: '{path} must be an integer of unix seconds' });
const PAGE = withDefault(
  integer({ minimum: 1, maximum: MAX_PAGE, invalid: `{path} must be an integer from 1 to ${MAX_PAGE}`, description: 'Page size' }),
  DEFAULT_PAGE,
);
const CURSOR = withDefault(RFQ_ID, null);
const WALLET = string({ ref: 'Wallet', pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, invalid: '{path} must be a base58 wallet' });
const QUOTE_ID = string({ ref: 'QuoteId', pattern: /^[0-9a-f]{64}$/, invalid: '{path} must be 64 lowercase hex characters' });

/**
 * The competitive RFQ (docs/spec/design.md 18): `makers` is the taker's panel. Its size (1 to
 * COMPETITION_MAX_MAKERS), its duplicates and whether each wallet is a quoter's are the service's
 * checks (RFQ_VALUE_OUT_OF_RANGE naming the wallet or the count): the bound is configuration.
 */
const COMPETITION = object(
  {
    makers: optional(array({ items: WALLET, invalid: '{path} must be an array of wallets' })),
  },
  { invalid: '{path} must be an object with an optional makers array' },
);

const LEG = object(
  {
    instrument: required(string({ ref: 'InstrumentSymbol', invalid: '{path} must be a string' })),
    quantity: required(decimal({ ...SIGNED_DECIMAL, nonZero: { code: 'RFQ_SIZE_INVALID', message: '{path} must not be zero', reason: 'zero_quantity' } })),
  },
  { ref: 'RfqLeg', invalid: '{path} must be an object with instrument and quantity' },
);

/** docs/spec/design.md 13: replay the stored events after `since`, then go live. */
const SUBSCRIBE_PARAMS = object({
  since: withDefault(
    integer({
      minimum: 0,
      invalid: '{path} must be an account_seq: an integer >= 0',
      description: 'The last account_seq received: the stored events after it are sent first, then the live ones (kept 7 days)',
    }),
    null,
    true,
  ),
});

const subscribed = <const C extends SubscriptionChannel>(channel: C) =>
  ({
    type: 'object',
    properties: {
      channel: { const: channel },
      subscribed: { const: true },
      account_seq: { type: 'integer', minimum: 0, description: "The account's latest account_seq at the time of the call" },
    },
    required: ['channel', 'subscribed', 'account_seq'],
    additionalProperties: false,
  }) as const;
const itemsPage = <const N extends 'RfqView' | 'OpenRfq'>(item: N) =>
  ({
    type: 'object',
    properties: { items: { type: 'array', items: ref(item) }, next_cursor: { ...ref('RfqId'), description: "The last item's rfq_id when more remain" } },
    required: ['items'],
    additionalProperties: false,
  }) as const;

/** The channel's subscription (docs/spec/design.md 13); a subscribe with since while a replay of the channel runs is RFQ_STATE_CONFLICT. */
const subscribe = <const C extends SubscriptionChannel>(channel: C, summary: string) =>
  declareMethod({
    summary,
    ...(channel === 'rfq' ? ACCOUNT : QUOTER),
    mode: 'read',
    subscribes: channel,
    params: SUBSCRIBE_PARAMS,
    result: subscribed(channel),
    errors: ['RFQ_STATE_CONFLICT'],
  });

export const TAKER_METHODS = {
  'rfq.create': declareMethod({
    ...TAKER,
    mode: 'write',
    summary: 'Open a request for quote on a 1 to 13 leg strategy (taker role)',
    description:
      'Idempotent per (account, client_ref): the same legs in the same order (and the same competition) return the existing RFQ whatever its state; other legs or another competition are RFQ_CANONICAL_MISMATCH. Legs share one underlying and one expiry and are unique by symbol and by terms. With `competition` the RFQ is competitive (design.md 18): several makers quote, the taker accepts one; `makers` limits who sees it.',
    params: object({
      client_ref: required(CLIENT_REF),
      legs: required(
        array({
          items: LEG,
          minItems: 1,
          maxItems: MAX_LEGS,
          invalid: '{path} must be an array of legs',
          size: { code: 'RFQ_SIZE_INVALID', message: `{path} must hold 1 to ${MAX_LEGS} legs, got {length}`, reason: 'leg_count' },
        }),
      ),
      competition: optional(COMPETITION),
    }),
    result: ref('RfqView'),
    errors: ['RFQ_PRECISION_UNSUPPORTED', 'RFQ_SIZE_INVALID', 'RFQ_INVALID_INSTRUMENT', 'RFQ_CANONICAL_MISMATCH', 'RFQ_OPEN_LIMIT'],
  }),
  /**
   * rfq.accept (docs/spec/interface.md 4.2): every field is checked for presence first, then in the
   * order of the interface's table. Whether `taker_signature` is canonical base64 of 64 bytes is the
   * signature check's business (RFQ_INVALID_SIGNATURE), so any string passes here.
   */
  'rfq.accept': declareMethod({
    ...TAKER,
    mode: 'write',
    summary: "Accept one side of the quote with the taker's Ed25519 signature",
    description: 'Signature over the 105-byte StrategyAcceptPayload. The fill runs after the reply; its outcome arrives on the `rfq` channel.',
    params: object(
      {
        quote_id: required(QUOTE_ID),
        side: required(string({ ref: 'Side', enum: SIDES, invalid: '{path} must be "buy" or "sell"' })),
        // int64 unix seconds; a JSON number beyond 2^53 cannot be held exactly, so it is refused too.
        expires_at: required(
          integer({ ref: 'UnixSeconds', invalid: '{path} must be an integer of unix seconds', description: "At or before the quote's expires_at" }),
        ),
        taker_signature: required(string({ ref: 'Ed25519Base64', invalid: '{path} must be a string' })),
      },
      { requiredFirst: true },
    ),
    result: {
      type: 'object',
      properties: {
        rfq_id: ref('RfqId'),
        quote_id: ref('QuoteId'),
        side: ref('Side'),
        state: { const: 'accepted' },
        best: {
          type: 'boolean',
          description: 'Competitive RFQs only (design.md 18): the accepted price was the best live price on its side at that moment',
        },
      },
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
  }),
  /** The taker's cancel (docs/spec/design.md 15). */
  'rfq.cancel': declareMethod({
    ...TAKER,
    mode: 'write',
    summary: "Withdraw one of the caller's pending or quoted RFQs (taker role)",
    description:
      "The RFQ moves to expired with cancelled_at set and its open-RFQ slot is freed; the taker hears expired, quoters closed (it was pending) or the quoting maker expired (it was quoted). Cancelling an RFQ already cancelled returns the same result; any other state is RFQ_STATE_CONFLICT; another account's or an unknown RFQ is RFQ_NOT_FOUND. A race with a respond or an accept is decided by one conditional move.",
    params: object({ rfq_id: required(RFQ_ID) }),
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), state: { const: 'expired' }, cancelled_at: ref('UnixSeconds') },
      required: ['rfq_id', 'state', 'cancelled_at'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT'],
  }),
  'rfq.cancel_all': declareMethod({
    ...TAKER,
    mode: 'write',
    summary: 'Withdraw every pending and quoted RFQ of the caller (taker role)',
    description: 'Each RFQ is cancelled as by rfq.cancel; those a respond or an accept did not take first are listed, oldest first.',
    params: object({}),
    result: {
      type: 'object',
      properties: { cancelled: { type: 'array', items: ref('RfqId') } },
      required: ['cancelled'],
      additionalProperties: false,
    },
    errors: [],
  }),
  'rfq.get': declareMethod({
    ...ACCOUNT,
    mode: 'read',
    summary: "One of the caller's live-book RFQs",
    params: object({ rfq_id: required(RFQ_ID) }),
    result: ref('RfqView'),
    errors: ['RFQ_NOT_FOUND'],
  }),
  'rfq.list': declareMethod({
    ...ACCOUNT,
    mode: 'read',
    summary: "Page through the caller's live-book RFQs, newest first",
    description: 'The live book keeps an RFQ until 24 h after it ended; settled history is GET /query/rfq-fills.',
    params: object({
      states: withDefault(
        array({
          items: string({ ref: 'RfqState', enum: RFQ_STATES, invalid: '{path} must be an RFQ state, got {value}' }),
          invalid: '{path} must be an array of RFQ states',
          unique: '{path} must not repeat a state',
        }),
        null,
      ),
      cursor: CURSOR,
      limit: PAGE,
    }),
    result: itemsPage('RfqView'),
    errors: [],
  }),
  'rfq.subscribe': subscribe('rfq', "Subscribe this connection to the taker's RFQ events (channel rfq)"),
  /** The signed transcript of a competitive RFQ (docs/spec/design.md 18). */
  'rfq.transcript': declareMethod({
    ...TAKER,
    mode: 'read',
    summary: 'The exchange-signed transcript of an ended competitive RFQ: every quote it received, in order, with its end',
    description:
      "The RFQ's taker only. RFQ_NOT_FOUND for another account's RFQ, an unknown one, a seed RFQ and while the competition runs. payload: the UTF-8 bytes of the transcript as RFC 8785 canonical JSON; hash: hex SHA-256 of them; signature: base64 ed25519 by the exchange key key_id.",
    params: object({ rfq_id: required(RFQ_ID) }),
    result: ref('RfqTranscriptResult'),
    errors: ['RFQ_NOT_FOUND'],
  }),
};

export const RESPOND_PARAMS = object({
  rfq_id: required(RFQ_ID),
  quote_nonce: required(
    u64({
      invalid: '{path} must be a canonical decimal u64 string of 1 or more',
      range: '{path} is above the u64 range',
      description: 'Canonical decimal u64',
    }),
  ),
  bid: required(decimal({ ...SIGNED_DECIMAL, description: 'What the maker pays for the package when the taker sells' })),
  ask: required(decimal({ ...SIGNED_DECIMAL, description: 'What the maker receives for the package when the taker buys' })),
  issued_at: required(SECONDS),
  expires_at: required(SECONDS),
  // Whether it is canonical base64 of 64 bytes is the signature check's business (RFQ_INVALID_SIGNATURE).
  maker_signature: required(string({ ref: 'Ed25519Base64', invalid: '{path} must be a string' })),
});

export const RESPOND_ERRORS = [
  'RFQ_NOT_FOUND',
  'RFQ_STATE_CONFLICT',
  'RFQ_PRECISION_UNSUPPORTED',
  'RFQ_QUOTE_EXPIRED',
  'RFQ_INVALID_SIGNATURE',
  'RFQ_INVALID_INSTRUMENT',
  // The maker's limits (docs/spec/design.md section 15).
  'RFQ_SIZE_INVALID',
  'RFQ_PRICE_TOLERANCE',
  'RFQ_OPEN_LIMIT',
] as const;

export const QUOTER_METHODS = {
  'rfq.maker.poll': declareMethod({
    ...QUOTER,
    mode: 'read',
    summary: 'Page through pending RFQs as a quoter, oldest first (not the caller’s own)',
    params: object({ cursor: CURSOR, limit: PAGE }),
    result: itemsPage('OpenRfq'),
    errors: [],
  }),
  'rfq.maker.respond': declareMethod({
    ...QUOTER,
    mode: 'write',
    summary: 'Quote the whole package with a signed two-sided quote (first quote wins; on a competitive RFQ it adds or replaces the caller’s live quote)',
    description:
      'bid <= ask; issued_at < expires_at, expires_at - issued_at <= 3600, expires_at <= max_quote_expires_at (never clamped), issued_at <= now + 5. quote_nonce strictly increases per maker account; a failed respond consumes no nonce. Signature over the 1,050-byte StrategyQuotePayload.',
    params: RESPOND_PARAMS,
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), quote_id: ref('QuoteId'), state: { const: 'quoted' } },
      required: ['rfq_id', 'quote_id', 'state'],
      additionalProperties: false,
    },
    errors: RESPOND_ERRORS,
  }),
  'rfq.maker.decline': declareMethod({
    ...QUOTER,
    mode: 'write',
    summary: 'Decline a pending RFQ with a reason (on a competitive RFQ: records this maker’s decline and cancels its live quote)',
    params: object({
      rfq_id: required(RFQ_ID),
      reason: required(string({ enum: DECLINE_REASONS, invalid: `{path} must be one of ${DECLINE_REASONS.join(', ')}` })),
    }),
    result: {
      type: 'object',
      properties: { rfq_id: ref('RfqId'), state: { const: 'declined' }, decline_reason: { type: 'string', enum: DECLINE_REASONS } },
      required: ['rfq_id', 'state', 'decline_reason'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT'],
  }),
  'rfq.maker.subscribe': subscribe('rfq_maker', "Subscribe this connection to the quoters' RFQ events (channel rfq_maker)"),
  'rfq.maker.cancel_quote': declareMethod({
    ...QUOTER,
    mode: 'write',
    summary: "Withdraw one of the caller's live quotes on a competitive RFQ (design.md 18)",
    description:
      'The quote ends cancelled; again: the same result. A quote of a seed RFQ stays firm (RFQ_STATE_CONFLICT); another maker’s or an unknown quote is RFQ_NOT_FOUND; a quote that ended otherwise is RFQ_STATE_CONFLICT.',
    params: object({ quote_id: required(QUOTE_ID) }),
    result: {
      type: 'object',
      properties: { quote_id: ref('QuoteId'), state: { const: 'cancelled' } },
      required: ['quote_id', 'state'],
      additionalProperties: false,
    },
    errors: ['RFQ_NOT_FOUND', 'RFQ_STATE_CONFLICT'],
  }),
  'rfq.maker.cancel_quotes': declareMethod({
    ...QUOTER,
    mode: 'write',
    summary: 'Withdraw every live competitive quote of the caller; the quotes cancelled, oldest first',
    params: object({}),
    result: {
      type: 'object',
      properties: { cancelled: { type: 'array', items: ref('QuoteId') } },
      required: ['cancelled'],
      additionalProperties: false,
    },
    errors: [],
  }),
};
