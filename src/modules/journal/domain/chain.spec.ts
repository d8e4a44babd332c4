import { loadVector } from '../../../../test/vectors';
import { parseRfqSigned, parseRfqUnsigned, parseWallet, signingDomain, takerCommitment } from '@legwork/protocol';
import { linkReceipt, unlinkedBody } from './chain';

/**
 * A staged receipt (its body, with the chain fields and the taker's commitment zero) linked by the
 * appender is byte for byte the receipt of the vectors (docs/spec/vectors/receipts.json, version 2).
 */
const vectors = loadVector('receipts.json');

describe('staged receipts: unlinkedBody then linkReceipt', () => {
  it.each((vectors.receipts as any[]).map((v, i) => [i, v] as [number, any]))('vector %i links to its payload', (_, v) => {
    const input = v.input;
    const body = unlinkedBody({
      kind: input.kind,
      domain: signingDomain('Legwork'),
      rfqId: input.rfq_id,
      quoteId: input.quote_id,
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
    });
    // Nothing of the chain or of the taker is in the staged row.
    expect(body.subarray(48, 88).every((b) => b === 0)).toBe(true);
    expect(body.subarray(136, 168).every((b) => b === 0)).toBe(true);
    const commitment = takerCommitment(Buffer.from(input.taker_salt, 'hex'), parseWallet(input.taker));
    const payload = linkReceipt(body, BigInt(input.journal_seq), Buffer.from(input.prev_hash, 'hex'), commitment);
    expect(payload.toString('hex')).toBe(v.payload_hex);
    // The body is not changed by linking (a retried batch links it again).
    expect(body.subarray(48, 88).every((b) => b === 0)).toBe(true);
  });
});
