import { loadVector } from '../../../test/vectors';
import {
  Ed25519Verifier,
  type QuotePayloadFields,
  decodeCanonicalBase64Signature,
  encodeBase64Signature,
  encodeQuotePayload,
  parseWallet,
  quoteId,
  signEd25519,
  signingDomain,
  toHex,
} from '../src';
import { type VectorQuote, vectorQuoteFields } from './vector-quote';

const vectors = loadVector('payloads.json');
const hex = (text: string) => Buffer.from(text, 'hex');

const quoteFields = (q: VectorQuote): QuotePayloadFields => vectorQuoteFields(q, signingDomain(vectors.service_name));

describe('StrategyQuotePayload (vectors/payloads.json)', () => {
  const verifier = new Ed25519Verifier();

  it('has the domain of the service name', () => {
    expect(toHex(signingDomain(vectors.service_name))).toBe(vectors.domain_hex);
  });

  describe.each(vectors.cases.map((c: any) => [c.name, c]) as [string, any][])('%s', (_name, c: any) => {
    const payload = encodeQuotePayload(quoteFields(c.quote));

    it('encodes the 1,050 vector bytes', () => {
      expect(payload.length).toBe(1050);
      expect(toHex(payload)).toBe(c.quote_payload_hex);
    });

    it('has the vector quote id', () => {
      expect(quoteId(payload)).toBe(c.quote_id);
    });

    it('verifies the maker signature over the payload', () => {
      const signature = decodeCanonicalBase64Signature(c.maker_signature)!;
      expect(signature).not.toBeNull();
      expect(verifier.verify(parseWallet(vectors.maker_wallet), payload, signature)).toBe(true);
      const tampered = Buffer.from(payload);
      tampered[1049] ^= 1; // an unused byte of the last slot is still signed
      expect(verifier.verify(parseWallet(vectors.maker_wallet), tampered, signature)).toBe(false);
    });

    it('reproduces the maker signature from the seed', () => {
      expect(encodeBase64Signature(signEd25519(hex(vectors.maker_seed_hex), payload))).toBe(c.maker_signature);
    });
  });

  describe('refuses impossible input', () => {
    const base = quoteFields(vectors.cases[0].quote);
    const bad: [string, Partial<QuotePayloadFields>][] = [
      ['no legs', { legs: [] }],
      ['14 legs', { legs: Array(14).fill(base.legs[0]) }],
      ['a 33-byte symbol', { legs: [{ ...base.legs[0], symbol: 'S'.repeat(33) }] }],
      ['an empty symbol', { legs: [{ ...base.legs[0], symbol: '' }] }],
      ['a non-ASCII symbol', { legs: [{ ...base.legs[0], symbol: 'SOL-é' }] }],
      ['a negative strike', { legs: [{ ...base.legs[0], strike: -1n }] }],
      ['a strike above u64', { legs: [{ ...base.legs[0], strike: 1n << 64n }] }],
      ['an unknown kind', { legs: [{ ...base.legs[0], kind: 'future' as any }] }],
      ['a quantity above i64', { legs: [{ ...base.legs[0], quantity: 1n << 63n }] }],
      ['a 17-byte asset', { asset: 'A'.repeat(17) }],
      ['an upper-case rfq id', { rfqId: base.rfqId.toUpperCase() }],
      ['a short rfq id', { rfqId: base.rfqId.slice(2) }],
      ['a 31-byte domain', { domain: new Uint8Array(31) }],
      ['a 33-byte maker', { maker: new Uint8Array(33) }],
      ['a negative nonce', { quoteNonce: -1n }],
      ['a bid below i64', { bid: -(1n << 63n) - 1n }],
      ['a fractional time', { expiresAt: 1.5 }],
    ];
    it.each(bad)('%s', (_what, change) => {
      expect(() => encodeQuotePayload({ ...base, ...change })).toThrow(Error);
    });

    it('accepts the full i64 and u64 ranges and 13 legs of 32-byte symbols', () => {
      const legs = Array.from({ length: 13 }, () => ({ symbol: 'S'.repeat(32), strike: (1n << 64n) - 1n, kind: 'put' as const, quantity: -(1n << 63n) }));
      const payload = encodeQuotePayload({ ...base, legs, bid: -(1n << 63n), ask: (1n << 63n) - 1n, quoteNonce: (1n << 64n) - 1n });
      expect(payload.length).toBe(1050);
      expect(Buffer.from(payload).readBigInt64LE(218 + 12 * 64 + 48)).toBe(-(1n << 63n));
    });

    it('hashes only a 1,050-byte payload', () => {
      expect(() => quoteId(new Uint8Array(1049))).toThrow();
    });
  });
});
