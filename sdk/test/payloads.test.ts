import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACCEPT_PAYLOAD_SIZE,
  type InstrumentTerms,
  Keypair,
  QUOTE_PAYLOAD_SIZE,
  buildQuote,
  decodeSignatureBase64,
  encodeAcceptPayload,
  encodeQuotePayload,
  encodeSignatureBase64,
  parseRfqSigned,
  quoteId,
  resolveQuoteLegs,
  signAccept,
  signQuote,
  signingDomain,
  verifyQuote,
  verifySignature,
} from '../src/index';
import { loadVector } from './vectors';

const v = loadVector('payloads.json');
const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const maker = Keypair.fromSeed(hex(v.maker_seed_hex));
const taker = Keypair.fromSeed(hex(v.taker_seed_hex));

/** Instrument records as public/get_instruments gives them, rebuilt from the symbols (docs/spec/design.md 2). */
function instrumentsOf(q: any): InstrumentTerms[] {
  return q.legs.map((leg: any) => {
    const [asset, , strike, kind] = leg.instrument.split('-');
    return { symbol: leg.instrument, asset, strike, kind: kind === 'C' ? 'call' : 'put', expiry: q.expiry };
  });
}

describe('payloads.json: signing domain and keys', () => {
  it('is SHA-256 of the service name', () => assert.equal(toHex(signingDomain(v.service_name)), v.domain_hex));
  it('derives the maker and taker wallets', () => {
    assert.equal(maker.wallet, v.maker_wallet);
    assert.equal(taker.wallet, v.taker_wallet);
  });
});

for (const c of v.cases) {
  const q = c.quote;
  const input = {
    rfq: { rfq_id: q.rfq_id, legs: q.legs },
    quoteNonce: q.quote_nonce,
    bid: q.bid,
    ask: q.ask,
    issuedAt: q.issued_at,
    expiresAt: q.expires_at,
    instruments: instrumentsOf(q),
  };

  describe(`payloads.json: ${c.name}: the quote`, () => {
    it('encodes the quote payload byte for byte', () => {
      const terms = resolveQuoteLegs(q.legs, input.instruments);
      assert.equal(terms.asset, q.asset);
      assert.equal(terms.expiry, q.expiry);
      const payload = encodeQuotePayload({
        domain: signingDomain(v.service_name),
        rfqId: q.rfq_id,
        maker: maker.publicKey,
        quoteNonce: BigInt(q.quote_nonce),
        bid: parseRfqSigned(q.bid),
        ask: parseRfqSigned(q.ask),
        issuedAt: q.issued_at,
        expiresAt: q.expires_at,
        asset: q.asset,
        expiry: q.expiry,
        legs: terms.legs,
      });
      assert.equal(payload.length, QUOTE_PAYLOAD_SIZE);
      assert.equal(toHex(payload), c.quote_payload_hex);
      assert.equal(quoteId(payload), c.quote_id);
    });

    it('signQuote reproduces the maker signature and the respond params', () => {
      const params = signQuote(maker, input);
      assert.deepEqual(params, {
        rfq_id: q.rfq_id,
        quote_nonce: q.quote_nonce,
        bid: q.bid,
        ask: q.ask,
        issued_at: q.issued_at,
        expires_at: q.expires_at,
        maker_signature: c.maker_signature,
      });
      const built = buildQuote(maker, {
        ...input,
        quoteNonce: BigInt(q.quote_nonce),
        bid: parseRfqSigned(q.bid),
        ask: parseRfqSigned(q.ask),
        domain: v.domain_hex,
      });
      assert.equal(built.quoteId, c.quote_id);
      assert.equal(toHex(built.payload), c.quote_payload_hex);
      assert.equal(built.params.maker_signature, c.maker_signature);
      assert.equal(verifySignature(maker.publicKey, built.payload, decodeSignatureBase64(c.maker_signature)!), true);
    });
  });

  describe(`payloads.json: ${c.name}: the taker's side`, () => {
    it('verifyQuote accepts the quote as the taker sees it and refuses any change', () => {
      const quote = {
        quote_id: c.quote_id,
        maker: q.maker,
        quote_nonce: q.quote_nonce,
        bid: q.bid,
        ask: q.ask,
        issued_at: q.issued_at,
        expires_at: q.expires_at,
        maker_signature: c.maker_signature,
      };
      const rfq = { rfq_id: q.rfq_id, legs: q.legs, quote };
      assert.equal(verifyQuote(rfq, input.instruments), true);
      assert.equal(verifyQuote({ ...rfq, quote: { ...quote, ask: '999' } }, input.instruments), false);
      assert.equal(verifyQuote({ ...rfq, quote: { ...quote, maker: v.taker_wallet } }, input.instruments), false);
      assert.equal(verifyQuote(rfq, input.instruments, { serviceName: 'Other' }), false);
      assert.equal(verifyQuote({ ...rfq, quote: null }, input.instruments), false);
    });

    for (const a of c.accepts) {
      it(`encodes and signs the ${a.side} accept byte for byte`, () => {
        const payload = encodeAcceptPayload({ rfqId: q.rfq_id, quoteId: c.quote_id, taker: taker.publicKey, side: a.side, expiresAt: a.expires_at });
        assert.equal(payload.length, ACCEPT_PAYLOAD_SIZE);
        assert.equal(toHex(payload), a.payload_hex);
        const params = signAccept(taker, { rfqId: q.rfq_id, quoteId: c.quote_id, side: a.side, expiresAt: a.expires_at });
        assert.deepEqual(params, { quote_id: c.quote_id, side: a.side, expires_at: a.expires_at, taker_signature: a.taker_signature });
      });
    }
  });
}

describe('payloads.json: canonical base64', () => {
  const texts: string[] = v.cases.flatMap((c: any) => [c.maker_signature, ...c.accepts.map((a: any) => a.taker_signature)]);
  for (const text of texts) {
    it(`decodes and re-encodes ${text.slice(0, 12)}…`, () => {
      const bytes = decodeSignatureBase64(text);
      assert.ok(bytes);
      assert.equal(bytes.length, 64);
      assert.equal(encodeSignatureBase64(bytes), text);
    });
  }
  for (const n of v.non_canonical_base64) {
    it(`refuses ${JSON.stringify(n.text.slice(0, 16))}… (${n.why})`, () => assert.equal(decodeSignatureBase64(n.text), null));
  }
  it('refuses non-zero unused bits, a trailing newline and non-strings', () => {
    const text: string = texts[0];
    const last = text[85] === 'A' ? 'B' : 'A';
    assert.equal(decodeSignatureBase64(text.slice(0, 85) + last + '=='), null);
    assert.equal(decodeSignatureBase64(text + '\n'), null);
    assert.equal(decodeSignatureBase64(null), null);
    assert.equal(decodeSignatureBase64(64), null);
  });
});

describe('quote inputs the payload cannot hold', () => {
  const q = v.cases[0].quote;
  const base = { rfq: { rfq_id: q.rfq_id, legs: q.legs }, quoteNonce: 1, bid: '1', ask: '2', issuedAt: 1, expiresAt: 2, instruments: instrumentsOf(q) };
  it('refuses an unknown leg, mixed expiries, bad nonces, decimals and ids', () => {
    assert.throws(() => signQuote(maker, { ...base, instruments: [] }), /not among the instrument records/);
    const other = { ...instrumentsOf(q)[0], symbol: 'SOL-28DEC26-150-C', expiry: q.expiry + 86400 };
    assert.throws(
      () =>
        signQuote(maker, {
          ...base,
          rfq: { rfq_id: q.rfq_id, legs: [...q.legs, { instrument: other.symbol, quantity: '1' }] },
          instruments: [...instrumentsOf(q), other],
        }),
      /mixed/,
    );
    assert.throws(() => signQuote(maker, { ...base, quoteNonce: 0 }));
    assert.throws(() => signQuote(maker, { ...base, quoteNonce: '01' }));
    assert.throws(() => signQuote(maker, { ...base, quoteNonce: 1n << 64n }));
    assert.throws(() => signQuote(maker, { ...base, bid: '1.0000001' }));
    assert.throws(() => signQuote(maker, { ...base, rfq: { rfq_id: 'ABC', legs: q.legs } }));
    assert.throws(() => signQuote(maker, { ...base, rfq: { rfq_id: q.rfq_id, legs: [] } }));
    assert.throws(() => signAccept(taker, { rfqId: q.rfq_id, quoteId: 'x', side: 'buy', expiresAt: 1 }));
  });
  it('accepts a Map of instruments and the largest nonce', () => {
    const map = new Map(instrumentsOf(q).map((i) => [i.symbol, i]));
    const params = signQuote(maker, { ...base, instruments: map, quoteNonce: (1n << 64n) - 1n });
    assert.equal(params.quote_nonce, '18446744073709551615');
  });
});
