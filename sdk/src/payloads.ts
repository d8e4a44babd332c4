import { createHash } from 'node:crypto';
import { I64_MAX, U64_MAX, formatRfq, parseRfqSigned, parseRfqUnsigned } from './decimal';
import { type Keypair, decodeWallet, verifySignature } from './keys';
import type { AcceptParams, InstrumentTerms, OptionKind, RespondParams, RfqLeg, RfqView, Side } from './types';

/**
 * The signed payloads of design.md section 9: StrategyQuotePayload (1,050 bytes, signed by the
 * maker) and StrategyAcceptPayload (105 bytes, signed by the taker). Little-endian integers,
 * decimals as 64-bit micro-units, every byte not written zero. Signatures travel as canonical
 * base64 (standard alphabet, padded, 88 characters).
 */

/** Size of a StrategyQuotePayload. */
export const QUOTE_PAYLOAD_SIZE = 1_050;
/** Size of a StrategyAcceptPayload. */
export const ACCEPT_PAYLOAD_SIZE = 105;
/** Most legs of an RFQ. */
export const MAX_LEGS = 13;
/** The service name the default signing domain is made of. */
export const DEFAULT_SERVICE_NAME = 'Legwork';

const PAYLOAD_VERSION = 1;
const LEGS_OFFSET = 218;
const LEG_SLOT_SIZE = 64;
const I64_MIN = -I64_MAX - 1n;

/** One leg as the quote payload holds it. */
export interface PayloadLeg {
  symbol: string;
  /** Micro-units, u64. */
  strike: bigint;
  kind: OptionKind;
  /** Micro-units, i64, taker-buy orientation. */
  quantity: bigint;
}

/** The fields of a StrategyQuotePayload. */
export interface QuotePayloadFields {
  /** {@link signingDomain} of the service, 32 bytes. */
  domain: Uint8Array;
  /** 32 lowercase hex characters. */
  rfqId: string;
  /** Maker wallet public key, 32 bytes. */
  maker: Uint8Array;
  quoteNonce: bigint;
  /** Micro-units. */
  bid: bigint;
  /** Micro-units. */
  ask: bigint;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
  /** Underlying of every leg (ASCII, at most 16 bytes). */
  asset: string;
  /** Expiry of every leg, unix seconds. */
  expiry: number;
  /** 1 to 13 legs, in the taker's order. */
  legs: PayloadLeg[];
}

/** The fields of a StrategyAcceptPayload. */
export interface AcceptPayloadFields {
  /** 32 lowercase hex characters. */
  rfqId: string;
  /** 64 lowercase hex characters (written as its 32 raw bytes). */
  quoteId: string;
  /** Taker wallet public key, 32 bytes. */
  taker: Uint8Array;
  side: Side;
  /** Unix seconds. */
  expiresAt: number;
}

/** The signing domain: SHA-256 of the UTF-8 service name (`quote_domain` of the market config, in hex). */
export function signingDomain(serviceName: string = DEFAULT_SERVICE_NAME): Uint8Array {
  return new Uint8Array(createHash('sha256').update(serviceName, 'utf8').digest());
}

/**
 * Encodes the 1,050-byte StrategyQuotePayload.
 * @throws {Error} when a field does not fit its slot
 */
export function encodeQuotePayload(q: QuotePayloadFields): Uint8Array {
  if (!Array.isArray(q.legs) || q.legs.length < 1 || q.legs.length > MAX_LEGS) throw new Error(`leg count ${q.legs?.length} is not 1 to ${MAX_LEGS}`);
  const out = Buffer.alloc(QUOTE_PAYLOAD_SIZE);
  out.write('STRATEGY_QUOTE', 0, 'ascii');
  out[14] = PAYLOAD_VERSION;
  out[15] = q.legs.length;
  putBytes(out, 16, q.domain, 32, 'domain');
  putBytes(out, 48, hexBytes(q.rfqId, 16, 'rfq_id'), 16, 'rfq_id');
  putBytes(out, 64, q.maker, 32, 'maker');
  putU64(out, 96, q.quoteNonce, 'quote_nonce');
  putI64(out, 104, q.bid, 'bid');
  putI64(out, 112, q.ask, 'ask');
  putSeconds(out, 120, q.issuedAt, 'issued_at');
  putSeconds(out, 128, q.expiresAt, 'expires_at');
  putAscii(out, 136, q.asset, 16, 'asset');
  putSeconds(out, 152, q.expiry, 'expiry');
  q.legs.forEach((leg, i) => {
    const slot = LEGS_OFFSET + i * LEG_SLOT_SIZE;
    putAscii(out, slot, leg.symbol, 32, `legs[${i}].symbol`);
    putU64(out, slot + 32, leg.strike, `legs[${i}].strike`);
    if (leg.kind !== 'call' && leg.kind !== 'put') throw new Error(`legs[${i}].kind must be call or put`);
    out[slot + 40] = leg.kind === 'call' ? 0 : 1;
    putI64(out, slot + 48, leg.quantity, `legs[${i}].quantity`);
  });
  return new Uint8Array(out);
}

/** QuoteId: lowercase hex SHA-256 of the 1,050-byte quote payload. */
export function quoteId(payload: Uint8Array): string {
  if (payload.length !== QUOTE_PAYLOAD_SIZE) throw new Error(`a quote payload is ${QUOTE_PAYLOAD_SIZE} bytes, got ${payload.length}`);
  return createHash('sha256').update(payload).digest('hex');
}

/**
 * Encodes the 105-byte StrategyAcceptPayload.
 * @throws {Error} when a field does not fit its slot
 */
export function encodeAcceptPayload(a: AcceptPayloadFields): Uint8Array {
  const out = Buffer.alloc(ACCEPT_PAYLOAD_SIZE);
  out.write('STRATEGY_ACCEPT', 0, 'ascii');
  out[15] = PAYLOAD_VERSION;
  putBytes(out, 16, hexBytes(a.rfqId, 16, 'rfq_id'), 16, 'rfq_id');
  putBytes(out, 32, hexBytes(a.quoteId, 32, 'quote_id'), 32, 'quote_id');
  putBytes(out, 64, a.taker, 32, 'taker');
  if (a.side !== 'buy' && a.side !== 'sell') throw new Error('side must be buy or sell');
  out[96] = a.side === 'buy' ? 0 : 1;
  putSeconds(out, 97, a.expiresAt, 'expires_at');
  return new Uint8Array(out);
}

/** Canonical base64 of a 64-byte signature (88 characters, padded). */
export function encodeSignatureBase64(signature: Uint8Array): string {
  if (signature.length !== 64) throw new Error(`a signature is 64 bytes, got ${signature.length}`);
  return Buffer.from(signature).toString('base64');
}

/**
 * Decodes a quote or accept signature: only the one canonical base64 text of exactly 64 bytes
 * (standard alphabet, padded, no whitespace, zero unused bits). Anything else: null.
 */
export function decodeSignatureBase64(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]{86}==$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== 64 || bytes.toString('base64') !== text) return null;
  return new Uint8Array(bytes);
}

/** Instrument records, as a list (`public/get_instruments`) or a map by symbol. */
export type InstrumentSource = ReadonlyArray<InstrumentTerms> | ReadonlyMap<string, InstrumentTerms>;

/**
 * Resolves an RFQ's legs to payload legs with the strike and kind of each instrument record,
 * and checks that they share one asset and expiry.
 * @throws {Error} for an unknown symbol, mixed asset or expiry, or a bad quantity
 */
export function resolveQuoteLegs(legs: ReadonlyArray<RfqLeg>, instruments: InstrumentSource): { asset: string; expiry: number; legs: PayloadLeg[] } {
  const bySymbol: ReadonlyMap<string, InstrumentTerms> = isMap(instruments) ? instruments : new Map(instruments.map((i) => [i.symbol, i]));
  if (!Array.isArray(legs) || legs.length === 0) throw new Error('an RFQ has 1 to 13 legs');
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
      maker_signature: encodeSignatureBase64(maker.sign(payload)),
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
  return { quote_id: input.quoteId, side: input.side, expires_at: input.expiresAt, taker_signature: encodeSignatureBase64(taker.sign(payload)) };
}

/**
 * Checks the quote an RFQ holds, as a careful taker would before accepting: rebuilds the quote
 * payload from the RFQ's legs and the quote's fields, and checks that its SHA-256 is the
 * `quote_id` and that the maker's signature verifies with the maker's wallet.
 * @returns false when the RFQ has no quote or any check fails
 */
export function verifyQuote(rfq: Pick<RfqView, 'rfq_id' | 'legs' | 'quote'>, instruments: InstrumentSource, options: { serviceName?: string; domain?: Uint8Array | string } = {}): boolean {
  const q = rfq.quote;
  if (!q) return false;
  try {
    const maker = decodeWallet(q.maker);
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
    const signature = decodeSignatureBase64(q.maker_signature);
    return signature !== null && quoteId(payload) === q.quote_id && verifySignature(maker, payload, signature);
  } catch {
    return false;
  }
}

/** Exactly `size` bytes from `2 * size` lowercase hex characters. */
function hexBytes(text: string, size: number, field: string): Uint8Array {
  if (typeof text !== 'string' || text.length !== size * 2 || !/^[0-9a-f]*$/.test(text)) throw new Error(`${field} must be ${size * 2} lowercase hex characters`);
  return new Uint8Array(Buffer.from(text, 'hex'));
}

function putBytes(out: Buffer, offset: number, bytes: Uint8Array, size: number, field: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== size) throw new Error(`${field} must be ${size} bytes`);
  out.set(bytes, offset);
}

function putI64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < I64_MIN || value > I64_MAX) throw new Error(`${field} is not a signed 64-bit integer`);
  out.writeBigInt64LE(value, offset);
}

function putU64(out: Buffer, offset: number, value: bigint, field: string): void {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw new Error(`${field} is not an unsigned 64-bit integer`);
  out.writeBigUInt64LE(value, offset);
}

function putSeconds(out: Buffer, offset: number, value: number, field: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${field} must be an integer number of seconds`);
  out.writeBigInt64LE(BigInt(value), offset);
}

function putAscii(out: Buffer, offset: number, text: string, size: number, field: string): void {
  if (typeof text !== 'string' || !/^[\x21-\x7e]+$/.test(text) || text.length > size) throw new Error(`${field} must be 1 to ${size} printable ASCII characters`);
  out.write(text, offset, 'ascii');
}
