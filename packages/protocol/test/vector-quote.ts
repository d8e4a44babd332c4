import { type PayloadLeg, type QuotePayloadFields, parseRfqSigned, parseRfqUnsigned, parseWallet } from '../src';

/** A quote as the payload vectors write it (vectors/payloads.json, `cases[].quote`). */
export interface VectorQuote {
  rfq_id: string;
  maker: string;
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: number;
  expires_at: number;
  asset: string;
  expiry: number;
  legs: Array<{ instrument: string; quantity: string }>;
}

/** A vector leg: strike and kind come from the symbol `ASSET-DDMMMYY-STRIKE-C|P`. */
function leg(v: { instrument: string; quantity: string }): PayloadLeg {
  const [, , strike, kind] = v.instrument.split('-');
  return { symbol: v.instrument, strike: parseRfqUnsigned(strike), kind: kind === 'C' ? 'call' : 'put', quantity: parseRfqSigned(v.quantity) };
}

/** The payload fields of a vector quote under `domain`: shared by the quote and accept payload specs. */
export function vectorQuoteFields(q: VectorQuote, domain: Uint8Array): QuotePayloadFields {
  return {
    domain,
    rfqId: q.rfq_id,
    maker: parseWallet(q.maker),
    quoteNonce: BigInt(q.quote_nonce),
    bid: parseRfqSigned(q.bid),
    ask: parseRfqSigned(q.ask),
    issuedAt: q.issued_at,
    expiresAt: q.expires_at,
    asset: q.asset,
    expiry: q.expiry,
    legs: q.legs.map(leg),
  };
}
