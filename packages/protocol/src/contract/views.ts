import { DECLINE_REASONS, ASSET_PATTERN, OPTION_KINDS, RFQ_STATES, ROLES, SIDES } from './enums';
import { RFQ_ERROR_CODES, RFQ_REASONS, RPC_CODES, RPC_ERROR_NAMES } from './errors';
import type { FromSchema } from './from-schema';
import { ref } from './json-schema';
import { MAKER_QUOTE_SCHEMAS } from './methods-reconcile';
import { COMPETITION_SCHEMAS } from './views-competition';

/**
 * JSON Schemas (draft-07, the AsyncAPI schema dialect) of the values the trading WebSocket
 * carries, from docs/spec/interface.md sections 2 and 7.2 and docs/spec/design.md sections 2 to 5: the
 * `components.schemas` of /asyncapi.json, the schemas the methods' results refer to, and (through
 * `View`) the TypeScript types of the clients. Written with literal types kept, so `View<'RfqView'>`
 * is read off the schema.
 */
const nullable = <const S>(schema: S) => ({ oneOf: [schema, { type: 'null' }] }) as const;
/** An object with exactly these properties; all required unless `required` says which. */
function object<
  const P extends Record<string, object>,
  const R extends readonly (keyof P & string)[] = ReadonlyArray<keyof P & string>,
  const E extends object = Record<never, never>,
>(properties: P, required?: R, extra?: E): { type: 'object'; properties: P; required: R; additionalProperties: false } & E {
  return { type: 'object', properties, required: required ?? (Object.keys(properties) as unknown as R), additionalProperties: false, ...(extra as E) };
}

const UNIX_SECONDS = { type: 'integer', format: 'int64', minimum: 0, description: 'Unix seconds' } as const;

/** A per-asset map of RfqDecimal (keys: assets). `properties` is empty: every key is an asset. */
const assetDecimals = (description: string) =>
  ({
    type: 'object',
    properties: {},
    required: [],
    propertyNames: { pattern: ASSET_PATTERN.source },
    additionalProperties: ref('RfqDecimal'),
    description,
  }) as const;

/** The maker desk (docs/spec/design.md section 15): limits, protection, usage. */
const MAKER_LIMITS_SCHEMAS = {
  AssetDecimals: assetDecimals('asset → RfqDecimal'),
  MakerProtection: object(
    {
      window_seconds: { type: 'integer', minimum: 1 },
      max_fills: { type: 'integer', minimum: 0 },
      max_fill_notional: ref('RfqDecimal'),
      max_fill_delta: ref('AssetDecimals'),
      frozen_seconds: { type: 'integer', minimum: 0, description: '0: frozen until rfq.maker.reset_protection' },
    },
    ['window_seconds', 'frozen_seconds'],
    { description: 'Maker protection after fills: the maker is frozen when the fills of the last window_seconds exceed a threshold' },
  ),
  MakerLimits: object(
    {
      max_open_quotes: { type: 'integer', minimum: 0, description: '0 is the kill switch' },
      max_open_notional: ref('RfqDecimal'),
      max_quote_notional: ref('RfqDecimal'),
      max_open_delta: ref('AssetDecimals'),
      max_open_vega: ref('AssetDecimals'),
      price_band_bps: { type: 'integer', minimum: 0 },
      protection: ref('MakerProtection'),
    },
    [],
    { description: 'Every field optional (absent = no limit)' },
  ),
  MakerLimitsView: object(
    {
      limits: { ...ref('MakerLimits'), description: "The maker's own limits" },
      admin_limits: { ...ref('MakerLimits'), description: "The operator's ceiling; the stricter of the two applies per field" },
      usage: object({
        open_quotes: { type: 'integer', minimum: 0 },
        open_notional: ref('RfqDecimal'),
        open_delta: assetDecimals('Per asset: the sum of |delta| of the live quotes'),
        open_vega: assetDecimals('Per asset: the sum of |vega| of the live quotes'),
      }),
      protection: object({
        frozen: { type: 'boolean' },
        until: { type: ['integer', 'null'], description: 'Unix seconds; null while frozen: until rfq.maker.reset_protection' },
        window: object({ fills: { type: 'integer', minimum: 0 }, notional: ref('RfqDecimal'), delta: assetDecimals('Per asset: the sum of |delta| filled') }),
      }),
    },
    undefined,
    { description: 'Limits, ceiling, usage of the live quotes at the current marks, and protection state (rfq.maker.get_limits)' },
  ),
  MakerProtectionTrip: object({
    tripped_at: UNIX_SECONDS,
    until: { type: ['integer', 'null'], description: 'Unix seconds; null: until rfq.maker.reset_protection' },
    reason: { type: 'string', description: 'The threshold exceeded and the value reached' },
  }),
} as const;

export const VIEW_SCHEMAS = {
  RpcId: { description: 'JSON-RPC request id, echoed in the response', type: ['string', 'integer', 'null'] },
  UnixSeconds: UNIX_SECONDS,
  RfqSignedDecimal: {
    type: 'string',
    pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
    description: 'Canonical signed decimal, at most 6 fractional digits; "-0", JSON numbers and exponents are refused',
    examples: ['1.5', '-2', '0.000001'],
  },
  RfqDecimal: {
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
    description: 'Canonical unsigned decimal, at most 6 fractional digits',
    examples: ['12.5'],
  },
  RfqId: { type: 'string', pattern: '^[0-9a-f]{32}$', description: '16-byte RFQ id (UUIDv7) as 32 lowercase hex characters' },
  QuoteId: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the canonical 1,050-byte StrategyQuotePayload' },
  RfqState: { type: 'string', enum: RFQ_STATES },
  Side: { type: 'string', enum: SIDES },
  Wallet: { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 of a 32-byte ed25519 public key (Solana address)' },
  Ed25519Base64: {
    type: 'string',
    pattern: '^[A-Za-z0-9+/]{86}==$',
    description: 'Canonical base64 (standard alphabet, padded, 88 characters) of exactly 64 Ed25519 signature bytes',
  },
  InstrumentSymbol: { type: 'string', maxLength: 32, description: '<ASSET>-<DDMMMYY>-<STRIKE>-<C|P>', examples: ['SOL-27DEC26-152.5-C'] },
  Asset: { type: 'string', pattern: ASSET_PATTERN.source, examples: ['SOL'] },
  Role: { type: 'string', enum: ROLES },
  RfqLeg: object(
    { instrument: ref('InstrumentSymbol'), quantity: { ...ref('RfqSignedDecimal'), description: 'Non-zero; signed contracts in taker-buy orientation' } },
    undefined,
    { description: 'One leg, as the taker sent it (legs keep the taker order everywhere)' },
  ),
  RfqQuote: object({
    quote_id: ref('QuoteId'),
    maker: { ...ref('Wallet'), description: "The maker's wallet (to rebuild and check the signed payload)" },
    quote_nonce: { type: 'string', pattern: '^[1-9][0-9]*$' },
    bid: ref('RfqSignedDecimal'),
    ask: ref('RfqSignedDecimal'),
    issued_at: ref('UnixSeconds'),
    expires_at: ref('UnixSeconds'),
    maker_signature: ref('Ed25519Base64'),
  }),
  RfqFill: object(
    {
      fill_id: { type: 'string', pattern: '^[0-9]+$' },
      side: ref('Side'),
      price: ref('RfqSignedDecimal'),
      fee: ref('RfqDecimal'),
      filled_at: ref('UnixSeconds'),
      reverted: { type: 'boolean' },
      receipt: ref('FillReceipt'),
    },
    ['fill_id', 'side', 'price', 'fee', 'filled_at', 'reverted'],
  ),
  FillReceipt: object(
    {
      journal_seq: { type: 'integer', minimum: 1 },
      kind: { type: 'integer', enum: [0, 1], description: '0 fill, 1 revert' },
      payload: { type: 'string', contentEncoding: 'base64', description: 'the 1,072-byte StrategyFillReceipt (design.md 14)' },
      hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the payload' },
      key_id: { type: 'string', pattern: '^[0-9a-f]{16}$', description: 'the signing key of GET /v1/exchange/keys' },
      signature: { type: 'string', description: 'base64 ed25519 signature of the payload by the exchange key' },
      taker_salt: ref('TakerSalt'),
    },
    ['journal_seq', 'kind', 'payload', 'hash', 'key_id', 'signature'],
  ),
  TakerSalt: {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description:
      "the taker's salt (design.md 16): taker_commitment = SHA-256(\"LEGWORK_TAKER\" || salt || taker key); the taker's copies only, never the maker's",
  },
  RfqFailure: object({ error: { type: 'string', enum: RFQ_ERROR_CODES }, message: { type: 'string' } }),
  RfqView: object(
    {
      rfq_id: ref('RfqId'),
      client_ref: { type: 'string', format: 'uuid' },
      state: ref('RfqState'),
      legs: { type: 'array', items: ref('RfqLeg'), minItems: 1, maxItems: 13 },
      created_at: ref('UnixSeconds'),
      updated_at: ref('UnixSeconds'),
      expires_at: ref('UnixSeconds'),
      max_quote_expires_at: ref('UnixSeconds'),
      quote: nullable(ref('RfqQuote')),
      accepted_side: nullable(ref('Side')),
      decline_reason: nullable({ type: 'string', enum: DECLINE_REASONS }),
      failure: nullable(ref('RfqFailure')),
      fill: nullable(ref('RfqFill')),
      cancelled_at: { ...nullable(ref('UnixSeconds')), description: 'When the taker cancelled it (rfq.cancel; it is then expired), else null' },
      competition: { ...nullable(ref('RfqCompetition')), description: 'null for a seed RFQ (one quote, first wins); else the competition asked at create' },
      quotes: {
        ...nullable({ type: 'array', items: ref('RfqLiveQuote') }),
        description: 'null for a seed RFQ; else the live quotes, in the order received',
      },
      best: { ...nullable(ref('RfqBest')), description: 'null for a seed RFQ; else the quote_id of the highest live bid and of the lowest live ask' },
    },
    undefined,
    { description: "The taker's view of an RFQ (design.md sections 5 and 18)" },
  ),
  OpenRfq: object(
    {
      rfq_id: ref('RfqId'),
      legs: { type: 'array', items: ref('RfqLeg'), minItems: 1, maxItems: 13 },
      created_at: ref('UnixSeconds'),
      expires_at: ref('UnixSeconds'),
      max_quote_expires_at: { ...ref('UnixSeconds'), description: 'min(created_at + 3600, expiry of the legs): the latest quote expires_at' },
      competitive: { const: true, description: 'Present on a competitive RFQ only (design.md 18): several makers quote, the taker takes one' },
    },
    ['rfq_id', 'legs', 'created_at', 'expires_at', 'max_quote_expires_at'],
    { description: 'A pending RFQ as quoters see it: the legs are the exact structure quoted; the taker stays anonymous' },
  ),
  ClosedRfq: object(
    {
      rfq_id: ref('RfqId'),
      legs: { type: 'array', items: ref('RfqLeg'), minItems: 1, maxItems: 13 },
      created_at: ref('UnixSeconds'),
      expires_at: ref('UnixSeconds'),
      max_quote_expires_at: ref('UnixSeconds'),
      state: ref('RfqState'),
      competitive: { const: true, description: 'Present on a competitive RFQ only' },
    },
    ['rfq_id', 'legs', 'created_at', 'expires_at', 'max_quote_expires_at', 'state'],
    { description: 'An RFQ that left pending without the receiving quoter’s quote: the open RFQ object plus its state' },
  ),
  MakerQuoteEvent: object({
    rfq_id: ref('RfqId'),
    quote_id: ref('QuoteId'),
    state: ref('RfqState'),
    side: nullable(ref('Side')),
    fill: nullable(ref('RfqFill')),
  }),
  InstrumentRecord: object(
    {
      symbol: ref('InstrumentSymbol'),
      asset: ref('Asset'),
      strike: ref('RfqDecimal'),
      kind: { type: 'string', enum: OPTION_KINDS },
      expiry: ref('UnixSeconds'),
      paused: { type: 'boolean' },
      settled: { type: 'boolean' },
      settlement_price: nullable(ref('RfqDecimal')),
      created_at: ref('UnixSeconds'),
      mark_price: {
        ...nullable(ref('RfqDecimal')),
        description: 'Black-76 mark on the latest index and IV (stale or not: see index_updated_at in public/get_market_config); null when either is missing',
      },
      iv: nullable(ref('RfqDecimal')),
    },
    ['symbol', 'asset', 'strike', 'kind', 'expiry', 'paused', 'settled', 'settlement_price', 'created_at', 'mark_price', 'iv'],
  ),
  MarketConfig: object({
    service_name: { type: 'string' },
    quote_domain: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 service name: the signing domain' },
    settlement_currency: { const: 'USDC' },
    decimals: { const: 6 },
    payload_versions: object({ quote: { type: 'integer' }, accept: { type: 'integer' } }),
    assets: {
      type: 'array',
      items: object({ asset: ref('Asset'), index_price: ref('RfqDecimal'), index_updated_at: ref('UnixSeconds') }),
    },
    rfq: object({
      enabled: { type: 'boolean' },
      max_legs: { const: 13 },
      max_open_rfqs: { type: 'integer' },
      rfq_ttl_seconds: { type: 'integer' },
      max_quote_lifetime_seconds: { const: 3600 },
      taker_fee_bps: { type: 'integer' },
      trade_fee_cap_bps: { type: 'integer' },
      taker_fee_tolerance_bps: { type: 'integer' },
      market_data_max_age_seconds: { type: 'integer' },
    }),
  }),
  NonceChallenge: object({
    wallet: ref('Wallet'),
    nonce: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    expires_at: { ...ref('UnixSeconds'), description: 'The nonce is valid 300 s and single use' },
    message: { type: 'string', description: 'The exact text to sign: "Sign in to <service>\\n\\nWallet: <wallet>\\nNonce: <nonce>"' },
  }),
  SignInResult: object({
    wallet: ref('Wallet'),
    account_id: { type: ['integer', 'null'], description: 'null for a wallet without an account: its session reads and trades nothing' },
    roles: { type: 'array', items: ref('Role'), uniqueItems: true },
    session_token: { type: 'string', description: 'HS256 JWT; also an HTTP bearer credential' },
  }),
  RfqFundingRequirement: object(
    {
      required: ref('RfqDecimal'),
      estimate: { type: 'boolean' },
      funded: { type: 'boolean' },
      package_cash_delta: ref('RfqSignedDecimal'),
      cash_debit: ref('RfqDecimal'),
      fee: ref('RfqDecimal'),
      max_fee: ref('RfqDecimal'),
      writer: { type: 'boolean' },
      lock_increase: ref('RfqDecimal'),
      post_fill_locked: ref('RfqDecimal'),
    },
    ['required', 'estimate', 'funded'],
    { description: 'required = cash_debit + max_fee + lock_increase, for one accept side' },
  ),
  RfqTakerFunding: object(
    {
      anchored: { type: 'boolean' },
      free_balance: nullable(ref('RfqDecimal')),
      buy: nullable(ref('RfqFundingRequirement')),
      sell: nullable(ref('RfqFundingRequirement')),
    },
    undefined,
    { description: 'Advisory funding view (RFQ_TAKER_UNFUNDED details)' },
  ),
  RfqErrorData: object(
    {
      error: { type: 'string', enum: RFQ_ERROR_CODES },
      reason: ref('RfqErrorReason'),
      message: { type: 'string' },
      operation_id: { type: 'string', description: 'Server correlation id to quote to support' },
      retryable: { type: 'boolean' },
      rfq_id: ref('RfqId'),
      quote_id: ref('QuoteId'),
      details: { ...ref('RfqTakerFunding'), description: 'Present for RFQ_TAKER_UNFUNDED' },
      retry_after_ms: { type: 'integer', minimum: 1, description: 'Present for RFQ_RATE_LIMITED: milliseconds until a call would be admitted' },
      payload: {
        type: 'string',
        contentEncoding: 'base64',
        description:
          'RFQ_INVALID_SIGNATURE of rfq.maker.respond and rfq.maker.check: the 1,050-byte StrategyQuotePayload the exchange built (quote_id is its SHA-256)',
      },
    },
    ['error', 'reason', 'message', 'operation_id', 'retryable'],
    { description: 'error.data of every rfq.* failure (interface.md 7.2)' },
  ),
  RfqErrorReason: {
    type: 'string',
    enum: RFQ_REASONS,
    description: 'A stable snake_case word refining error.data.error (design.md section 19); the table per code is docs/errors.md',
  },
  ...MAKER_LIMITS_SCHEMAS,
  ...MAKER_QUOTE_SCHEMAS,
  ...COMPETITION_SCHEMAS,
  RpcErrorData: object(
    {
      error: { type: 'string', enum: RPC_ERROR_NAMES },
      message: { type: 'string' },
      operation_id: { type: 'string', description: 'Present for INTERNAL_ERROR' },
      retry_after_ms: { type: 'integer', minimum: 1, description: 'Present for RATE_LIMITED (1005): milliseconds until a call would be admitted' },
    },
    ['error', 'message'],
    { description: 'error.data of a non-RFQ failure (design.md section 4)' },
  ),
  RfqErrorReply: object(
    {
      jsonrpc: { const: '2.0' },
      id: ref('RpcId'),
      error: object({ code: { const: RPC_CODES.RFQ_ERROR }, message: { type: 'string' }, data: ref('RfqErrorData') }),
    },
    undefined,
    { description: 'The failure of an rfq.* method: always code 1200 with the typed RFQ error' },
  ),
  RpcErrorReply: object(
    {
      jsonrpc: { const: '2.0' },
      id: ref('RpcId'),
      error: object({
        code: {
          type: 'integer',
          enum: RPC_ERROR_NAMES.map((name) => RPC_CODES[name]),
          description: RPC_ERROR_NAMES.map((name) => `${RPC_CODES[name]} ${name}`).join(', '),
        },
        message: { type: 'string' },
        data: ref('RpcErrorData'),
      }),
    },
    undefined,
    { description: 'A non-RFQ failure (design.md section 4): parse errors, invalid requests, unknown methods and public/* failures' },
  ),
} as const;

export type ViewName = keyof typeof VIEW_SCHEMAS;
/** The wire type of a named view: `View<'RfqView'>` is the taker's view of an RFQ as the server sends it. */
export type View<N extends ViewName> = FromSchema<(typeof VIEW_SCHEMAS)[N], typeof VIEW_SCHEMAS>;
/** The wire type of any schema that refers to the views. */
export type WireType<S> = FromSchema<S, typeof VIEW_SCHEMAS>;
