import {
  DEFAULT_SERVICE_NAME,
  I64_MAX,
  type PayloadLeg,
  U64_MAX,
  decodeCanonicalBase64Signature,
  encodeAcceptPayload,
  encodeBase64Signature,
  encodeQuotePayload,
  formatRfq,
  hexBytes,
  parseRfqSigned,
  parseRfqUnsigned,
  parseWallet,
  quoteId,
  signingDomain,
  verifyEd25519,
} from '@legwork/protocol';
import type { Keypair } from './keys';
import type { AcceptParams, InstrumentTerms, RespondParams, RfqLeg, RfqView, Side } from './types';

/**
 * Quotes and accepts as a maker and a taker build them: legs resolved against the instrument
 * records, signed with a {@link Keypair}, checked before accepting. The signed payloads
 * themselves (docs/spec/design.md section 9: StrategyQuotePayload, 1,050 bytes; StrategyAcceptPayload,
 * 105 bytes) are `@legwork/protocol`'s encoders, the server's own, re-exported by this package.
 * Signatures travel as canonical base64 (standard alphabet, padded, 88 characters).
 */

/** Instrument records, as a list (`public/get_instruments`) or a map by symbol. */
export type InstrumentSource = ReadonlyArray<InstrumentTerms> | ReadonlyMap<string, InstrumentTerms>;

/**
 * Resolves an RFQ's legs to payload legs with the strike and kind of each instrument record,
 * and checks that they share one asset and expiry.
 * @throws {Error} for an unknown symbol, mixed asset or expiry, or a bad quantity
 */
export function resolveQuoteLegs(legs: ReadonlyArray<RfqLeg>, instruments: InstrumentSource): { asset: string; expiry: number; legs: PayloadLeg[] } {
  const bySymbol: ReadonlyMap<string, InstrumentTerms> = isMap(instruments) ? instruments : new Map(instruments.map((i) => [i.symbol, i]));
  // Checked as given (a JavaScript caller may pass anything), without narrowing `legs` to any[].
  const given: unknown = legs;
  if (!Array.isArray(given) || legs.length === 0) throw new Error('an RFQ has 1 to 13 legs');
  let asset: string | undefined;
  let expiry: number | undefined;
  const out = legs.map((leg, i): PayloadLeg => {
    const instrument = bySymbol.get(leg.instrument);
    if (!instrument) throw new Error(`legs[${i}]: instrument ${leg.instrument} is not among the instrument records given`);
    asset ??= instrument.asset;
    expiry ??= instrument.expiry;
    if (instrument.asset !== asset || instrument.expiry !== expiry) throw new Error(`legs[${i}]: legs of mixed asset or expiry`);
    return { symbol: leg.instrument, strike: parseRfqUnsigned(instrument.strike), kind: instrument.kind, quantity: parseRfqSigned(leg.quantity) };
  });
  return { asset: asset!, expiry: expiry!, legs: out };
}

function isMap(source: InstrumentSource): source is ReadonlyMap<string, InstrumentTerms> {
  return typeof (source as ReadonlyMap<string, InstrumentTerms>).get === 'function' && !Array.isArray(source);
}

/** What a maker quotes; see {@link signQuote}. */
export interface QuoteInput {
  /** The open RFQ being quoted (an item of `rfq.maker.poll` or a `created` event's `rfq`). */
  rfq: { rfq_id: string; legs: ReadonlyArray<RfqLeg> };
  /** Strictly increasing per maker account, 1 to 2^64 - 1. */
  quoteNonce: bigint | string | number;
  /** What the maker pays when the taker sells: decimal string or micro-units. */
  bid: bigint | string;
  /** What the maker receives when the taker buys: decimal string or micro-units. */
  ask: bigint | string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds; at most `issuedAt + 3600` and the RFQ's `max_quote_expires_at`. */
  expiresAt: number;
  /** Records of (at least) the legs' instruments, from `public/get_instruments`. */
  instruments: InstrumentSource;
  /** Service name of the signing domain (default "Legwork"); ignored when `domain` is given. */
  serviceName?: string;
  /** The signing domain itself: 32 bytes or 64 hex characters (`quote_domain` of the market config). */
  domain?: Uint8Array | string;
}

/** A quote built and signed: the params for `rfq.maker.respond`, its QuoteId and the signed bytes. */
export interface BuiltQuote {
  params: RespondParams;
  quoteId: string;
  payload: Uint8Array;
}

function toNonce(value: bigint | string | number): bigint {
  let nonce: bigint;
  if (typeof value === 'bigint') nonce = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) nonce = BigInt(value);
  else if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value)) nonce = BigInt(value);
  else throw new Error(`quote_nonce ${String(value)} is not a positive integer`);
  if (nonce < 1n || nonce > U64_MAX) throw new Error(`quote_nonce ${nonce} is not 1 to 2^64 - 1`);
  return nonce;
}

function toMicro(value: bigint | string, field: string): bigint {
  if (typeof value === 'bigint') {
    if (value > I64_MAX || value < -I64_MAX) throw new Error(`${field} is outside the RFQ decimal range`);
    return value;
  }
  return parseRfqSigned(value);
}

function toDomain(input: Pick<QuoteInput, 'domain' | 'serviceName'>): Uint8Array {
  if (input.domain === undefined) return signingDomain(input.serviceName ?? DEFAULT_SERVICE_NAME);
  if (typeof input.domain === 'string') return hexBytes(input.domain, 32, 'domain');
  return input.domain;
}

/**
 * Builds, signs and identifies a quote: {@link signQuote} with the QuoteId and payload too.
 * @throws {Error | DecimalError} for a value that cannot be encoded
 */
export function buildQuote(maker: Keypair, input: QuoteInput): BuiltQuote {
  const terms = resolveQuoteLegs(input.rfq.legs, input.instruments);
  const nonce = toNonce(input.quoteNonce);
  const bid = toMicro(input.bid, 'bid');
  const ask = toMicro(input.ask, 'ask');
  const payload = encodeQuotePayload({
    domain: toDomain(input),
    rfqId: input.rfq.rfq_id,
    maker: maker.publicKey,
    quoteNonce: nonce,
    bid,
    ask,
    issuedAt: input.issuedAt,
    expiresAt: input.expiresAt,
    asset: terms.asset,
    expiry: terms.expiry,
    legs: terms.legs,
  });
  return {
    params: {
      rfq_id: input.rfq.rfq_id,
      quote_nonce: nonce.toString(),
      bid: formatRfq(bid),
      ask: formatRfq(ask),
      issued_at: input.issuedAt,
      expires_at: input.expiresAt,
      maker_signature: encodeBase64Signature(maker.sign(payload)),
    },
    quoteId: quoteId(payload),
    payload,
  };
}

/**
 * Signs a two-sided quote for an open RFQ and returns the params of `rfq.maker.respond`, ready
 * to send (`maker_signature` in canonical base64). The strike and kind of each leg come from
 * `instruments`; all legs must share one asset and expiry.
 * @throws {Error | DecimalError} for a value that cannot be encoded
 */
export function signQuote(maker: Keypair, input: QuoteInput): RespondParams {
  return buildQuote(maker, input).params;
}

/** What a taker accepts; see {@link signAccept}. */
export interface AcceptInput {
  rfqId: string;
  quoteId: string;
  side: Side;
  /** Unix seconds; at or before the quote's `expires_at`. */
  expiresAt: number;
}

/**
 * Signs the acceptance of one side of a quote and returns the params of `rfq.accept`, ready to
 * send (`taker_signature` in canonical base64).
 * @throws {Error} for a value that cannot be encoded
 */
export function signAccept(taker: Keypair, input: AcceptInput): AcceptParams {
  const payload = encodeAcceptPayload({ rfqId: input.rfqId, quoteId: input.quoteId, taker: taker.publicKey, side: input.side, expiresAt: input.expiresAt });
  return { quote_id: input.quoteId, side: input.side, expires_at: input.expiresAt, taker_signature: encodeBase64Signature(taker.sign(payload)) };
}

/**
 * Checks the quote an RFQ holds, as a careful taker would before accepting: rebuilds the quote
 * payload from the RFQ's legs and the quote's fields, and checks that its SHA-256 is the
 * `quote_id` and that the maker's signature verifies with the maker's wallet.
 * @returns false when the RFQ has no quote or any check fails
 */
export function verifyQuote(
  rfq: Pick<RfqView, 'rfq_id' | 'legs' | 'quote'>,
  instruments: InstrumentSource,
  options: { serviceName?: string; domain?: Uint8Array | string } = {},
): boolean {
  const q = rfq.quote;
  if (!q) return false;
  try {
    const maker = parseWallet(q.maker);
    const terms = resolveQuoteLegs(rfq.legs, instruments);
    const payload = encodeQuotePayload({
      domain: toDomain(options),
      rfqId: rfq.rfq_id,
      maker,
      quoteNonce: toNonce(q.quote_nonce),
      bid: parseRfqSigned(q.bid),
      ask: parseRfqSigned(q.ask),
      issuedAt: q.issued_at,
      expiresAt: q.expires_at,
      asset: terms.asset,
      expiry: terms.expiry,
      legs: terms.legs,
    });
    const signature = decodeCanonicalBase64Signature(q.maker_signature);
    return signature !== null && quoteId(payload) === q.quote_id && verifyEd25519(maker, payload, signature);
  } catch {
    return false;
  }
}
