import { loadVector } from '../../../test/vectors';
import {
  Ed25519Verifier,
  decodeCanonicalBase64Signature,
  encodeAcceptPayload,
  encodeBase64Signature,
  encodeQuotePayload,
  parseWallet,
  signEd25519,
  toHex,
} from '../src';
import { type VectorQuote, vectorQuoteFields } from './vector-quote';

const vectors = loadVector('payloads.json');
const hex = (text: string) => Buffer.from(text, 'hex');

/** The vector quote's payload. */
const quotePayload = (q: VectorQuote): Uint8Array => encodeQuotePayload(vectorQuoteFields(q, hex(vectors.domain_hex)));

describe('StrategyAcceptPayload (vectors/payloads.json)', () => {
  const verifier = new Ed25519Verifier();
  const taker = parseWallet(vectors.taker_wallet);
  const cases: [string, string, any, any][] = vectors.cases.flatMap((c: any) => c.accepts.map((a: any) => [c.name, a.side, c, a]));

  describe.each(cases)('%s, %s', (_name, _side, c, a) => {
    const payload = encodeAcceptPayload({ rfqId: c.quote.rfq_id, quoteId: c.quote_id, taker, side: a.side, expiresAt: a.expires_at });

    it('encodes the 105 vector bytes', () => {
      expect(payload.length).toBe(105);
      expect(toHex(payload)).toBe(a.payload_hex);
    });

    it('verifies the taker signature, and reproduces it from the seed', () => {
      const signature = decodeCanonicalBase64Signature(a.taker_signature)!;
      expect(verifier.verify(taker, payload, signature)).toBe(true);
      expect(encodeBase64Signature(signEd25519(hex(vectors.taker_seed_hex), payload))).toBe(a.taker_signature);
    });

    it('does not verify as the other side or as a quote', () => {
      const signature = decodeCanonicalBase64Signature(a.taker_signature)!;
      const other = encodeAcceptPayload({
        rfqId: c.quote.rfq_id,
        quoteId: c.quote_id,
        taker,
        side: a.side === 'buy' ? 'sell' : 'buy',
        expiresAt: a.expires_at,
      });
      expect(verifier.verify(taker, other, signature)).toBe(false);
      const quoteSignature = decodeCanonicalBase64Signature(c.maker_signature)!;
      expect(verifier.verify(parseWallet(vectors.maker_wallet), payload, quoteSignature)).toBe(false);
      expect(verifier.verify(taker, quotePayload(c.quote), signature)).toBe(false);
    });
  });

  it('refuses impossible input', () => {
    const good = { rfqId: vectors.cases[0].quote.rfq_id, quoteId: vectors.cases[0].quote_id, taker, side: 'buy' as const, expiresAt: 1 };
    expect(() => encodeAcceptPayload(good)).not.toThrow();
    expect(() => encodeAcceptPayload({ ...good, rfqId: 'x' })).toThrow();
    expect(() => encodeAcceptPayload({ ...good, quoteId: good.quoteId.slice(1) })).toThrow();
    expect(() => encodeAcceptPayload({ ...good, quoteId: good.quoteId.toUpperCase() })).toThrow();
    expect(() => encodeAcceptPayload({ ...good, taker: new Uint8Array(31) })).toThrow();
    expect(() => encodeAcceptPayload({ ...good, side: 'hold' as any })).toThrow();
    expect(() => encodeAcceptPayload({ ...good, expiresAt: Number.NaN })).toThrow();
  });
});
