import { loadVector } from '../../../test/vectors';
import {
  Ed25519Verifier,
  RECEIPT_SIZE,
  type ReceiptFields,
  ReceiptError,
  decodeReceipt,
  encodeReceipt,
  encodeWallet,
  keyIdOf,
  parseRfqSigned,
  parseRfqUnsigned,
  parseWallet,
  publicKeyFromSeed,
  receiptHash,
  signEd25519,
  signingDomain,
  takerCommitment,
  toHex,
} from '../src';

const vectors = loadVector('receipts.json');
const seed = Buffer.from(vectors.exchange_seed_hex, 'hex');

function fields(input: any): ReceiptFields {
  return {
    version: input.version,
    kind: input.kind,
    domain: signingDomain('Legwork'),
    journalSeq: BigInt(input.journal_seq),
    prevHash: Buffer.from(input.prev_hash, 'hex'),
    rfqId: input.rfq_id,
    quoteId: input.quote_id,
    takerCommitment: Buffer.from(input.taker_commitment, 'hex'),
    maker: parseWallet(input.maker),
    side: input.side,
    price: parseRfqSigned(input.price),
    fee: parseRfqSigned(input.fee),
    at: input.at,
    fillId: BigInt(input.fill_id),
    legs: input.legs.map((l: any) => {
      const [, , strike, kind] = l.instrument.split('-');
      return { symbol: l.instrument, strike: parseRfqUnsigned(strike), kind: kind === 'C' ? 'call' : 'put', quantity: parseRfqSigned(l.quantity) };
    }),
  };
}

describe('StrategyFillReceipt (vectors/receipts.json)', () => {
  it('derives the exchange key and its key_id from the seed', () => {
    const pub = publicKeyFromSeed(seed);
    expect(encodeWallet(pub)).toBe(vectors.exchange_public_key);
    expect(keyIdOf(pub)).toBe(vectors.key_id);
  });

  describe.each(vectors.receipts.map((r: any) => [r.input.journal_seq, r]) as [number, any][])('journal_seq %s', (_seq, r: any) => {
    it('encodes the payload byte for byte, hashes and signs it as the vector does', () => {
      const payload = encodeReceipt(fields(r.input));
      expect(payload.length).toBe(RECEIPT_SIZE);
      expect(toHex(payload)).toBe(r.payload_hex);
      expect(toHex(receiptHash(payload))).toBe(r.hash);
      expect(Buffer.from(signEd25519(seed, payload)).toString('base64')).toBe(r.signature);
      expect(new Ed25519Verifier().verify(publicKeyFromSeed(seed), payload, Buffer.from(r.signature, 'base64'))).toBe(true);
    });
  });

  it("holds at offset 136 the taker's commitment, SHA-256 of LEGWORK_TAKER, the fill's salt and the taker's key", () => {
    for (const r of vectors.receipts) {
      const commitment = takerCommitment(Buffer.from(r.input.taker_salt, 'hex'), parseWallet(r.input.taker));
      expect(toHex(commitment)).toBe(r.input.taker_commitment);
      expect(Buffer.from(r.payload_hex, 'hex').subarray(136, 168).equals(commitment)).toBe(true);
      expect(r.payload_hex).not.toContain(Buffer.from(parseWallet(r.input.taker)).toString('hex'));
    }
    // The revert (journal_seq 3) reuses the salt of the fill it undoes (journal_seq 2).
    expect(vectors.receipts[2].input.taker_salt).toBe(vectors.receipts[1].input.taker_salt);
    expect(() => takerCommitment(Buffer.alloc(31), parseWallet(vectors.receipts[0].input.taker))).toThrow('taker_salt');
  });

  it('chains: each prev_hash is the hash of the receipt before', () => {
    vectors.receipts.slice(1).forEach((r: any, i: number) => expect(r.input.prev_hash).toBe(vectors.receipts[i].hash));
  });

  it('refuses fields off the layout', () => {
    const base = fields(vectors.receipts[0].input);
    expect(() => encodeReceipt({ ...base, journalSeq: 0n })).toThrow('journal_seq');
    expect(() => encodeReceipt({ ...base, legs: [] })).toThrow('leg count');
    expect(() => encodeReceipt({ ...base, price: 1n << 63n })).toThrow('price');
    expect(() => encodeReceipt({ ...base, quoteId: 'xyz' })).toThrow('quote_id');
    expect(() => encodeReceipt({ ...base, takerCommitment: undefined })).toThrow('taker_commitment');
    expect(() => encodeReceipt({ ...base, version: 1 })).toThrow('taker');
  });
});

describe('version 1 (vectors/receipts.json version_1): receipts already in a journal stay valid', () => {
  const v1 = vectors.version_1;
  const payload = Buffer.from(v1.payload_hex, 'hex');
  const first = vectors.receipts[0].input;

  it("decodes, with the taker's wallet at offset 136, and its hash and signature hold", () => {
    const decoded = decodeReceipt(payload);
    expect(decoded).toMatchObject({ version: 1, kind: 0, journalSeq: 1n, taker: first.taker, takerCommitment: null, maker: first.maker, side: 'buy' });
    expect(toHex(receiptHash(payload))).toBe(v1.hash);
    expect(keyIdOf(publicKeyFromSeed(seed))).toBe(v1.key_id);
    expect(new Ed25519Verifier().verify(publicKeyFromSeed(seed), payload, Buffer.from(v1.signature, 'base64'))).toBe(true);
  });

  it('is what the version 1 layout encodes from the first fill of the vectors', () => {
    const encoded = encodeReceipt({ ...fields(first), version: 1, takerCommitment: undefined, taker: parseWallet(first.taker) });
    expect(toHex(encoded)).toBe(v1.payload_hex);
    expect(Buffer.from(signEd25519(seed, encoded)).toString('base64')).toBe(v1.signature);
  });

  it('refuses a version that is neither 1 nor 2', () => {
    for (const version of [0, 3]) {
      const b = Buffer.from(payload);
      b[13] = version;
      expect(() => decodeReceipt(b)).toThrow(`version ${version}`);
    }
  });
});

describe('decodeReceipt: what a client reads back (vectors/receipts.json)', () => {
  it.each(vectors.receipts.map((r: any) => [r.input.journal_seq, r]) as [number, any][])(
    'decodes journal_seq %s to the fields it was encoded from',
    (_seq, r: any) => {
      const i = r.input;
      const decoded = decodeReceipt(Buffer.from(r.payload_hex, 'hex'));
      expect(decoded).toMatchObject({
        kind: i.kind,
        journalSeq: BigInt(i.journal_seq),
        prevHash: i.prev_hash,
        rfqId: i.rfq_id,
        quoteId: i.quote_id,
        version: 2,
        takerCommitment: i.taker_commitment,
        taker: null,
        maker: i.maker,
        side: i.side,
      });
      expect(decoded.domain).toBe(toHex(signingDomain('Legwork')));
      expect([decoded.price, decoded.fee, decoded.at, decoded.fillId]).toEqual([parseRfqSigned(i.price), parseRfqSigned(i.fee), i.at, BigInt(i.fill_id)]);
      expect(decoded.legs.map((l) => [l.instrument, l.quantity])).toEqual(i.legs.map((l: any) => [l.instrument, parseRfqSigned(l.quantity)]));
      expect(toHex(encodeReceipt(fields(i)))).toBe(r.payload_hex);
    },
  );

  it('refuses bytes off the layout', () => {
    const good = Buffer.from(vectors.receipts[0].payload_hex, 'hex');
    const off = (at: number, value: number) => {
      const b = Buffer.from(good);
      b[at] = value;
      return b;
    };
    expect(() => decodeReceipt(good.subarray(0, 1_071))).toThrow(ReceiptError);
    expect(() => decodeReceipt(off(0, 0x41))).toThrow('STRATEGY_FILL');
    expect(() => decodeReceipt(off(14, 2))).toThrow('kind');
    expect(() => decodeReceipt(off(15, 0))).toThrow('leg count');
    expect(() => decodeReceipt(off(201, 1))).toThrow('side');
    expect(() => decodeReceipt(off(1_071, 1))).toThrow('leg slot');
  });
});
