import { Ed25519Verifier, encodeWallet, parseRfqSigned, parseRfqUnsigned, parseWallet, publicKeyFromSeed, signEd25519, signingDomain } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { type ReceiptFields, RECEIPT_SIZE, encodeReceipt, keyIdOf, receiptHash } from './receipt';

const vectors = loadVector('receipts.json');
const seed = Buffer.from(vectors.exchange_seed_hex, 'hex');

function fields(input: any): ReceiptFields {
  return {
    kind: input.kind,
    domain: signingDomain('Legwork'),
    journalSeq: BigInt(input.journal_seq),
    prevHash: Buffer.from(input.prev_hash, 'hex'),
    rfqId: input.rfq_id,
    quoteId: input.quote_id,
    taker: parseWallet(input.taker),
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
      expect(payload.toString('hex')).toBe(r.payload_hex);
      expect(receiptHash(payload).toString('hex')).toBe(r.hash);
      expect(Buffer.from(signEd25519(seed, payload)).toString('base64')).toBe(r.signature);
      expect(new Ed25519Verifier().verify(publicKeyFromSeed(seed), payload, Buffer.from(r.signature, 'base64'))).toBe(true);
    });
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
  });
});
