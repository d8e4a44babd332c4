import Fastify from 'fastify';
import { BALANCE_ROW, type BalanceRow, RFQ_FILL_ROW, RFQ_POSITION_ROW, ROUTES, type RfqFillRow, type RfqPositionRow } from '@legwork/protocol';

/** The body as Fastify writes it with the route's response schema (its compiled serializer). */
async function written(schema: object, body: unknown): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: schema } } }, async () => body);
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  expect(res.statusCode).toBe(200);
  return res.payload;
}

const position = (over: Partial<RfqPositionRow> = {}): RfqPositionRow => ({
  account_id: 9007199254740991,
  instrument: 'SOL-27NOV26-150-C',
  asset: 'SOL',
  strike: '150.00000000',
  kind: 'call',
  expiry: 1795766400,
  settled: false,
  quantity: '-12.50000000',
  average_price: '3.14159265',
  updated_at: '2026-11-24T03:10:11.123Z',
  ...over,
});

describe("query routes' declared 200 bodies (the serializer Fastify compiles from them)", () => {
  it('writes rfq-positions rows exactly as JSON.stringify would, null average_price and an empty page included', async () => {
    for (const rows of [[position(), position({ average_price: null, kind: 'put', settled: true, quantity: '0.00000001' })], []]) {
      const body = { rows };
      expect(await written(ROUTES['query.rfq-positions'].response, body)).toBe(JSON.stringify(body));
    }
  });

  it('writes rfq-fills rows with their legs, with and without next_cursor', async () => {
    const fill: RfqFillRow = {
      fill_id: '18446744073709551',
      rfq_id: '42',
      quote_id: 'q"\\\u00e9\u2028',
      role: 'maker',
      side: 'sell',
      legs: [
        { instrument: 'SOL-27NOV26-150-C', quantity: '10.00000000' },
        { instrument: 'SOL-27NOV26-160-C', quantity: '-10.00000000' },
      ],
      price: '-0.12345678',
      fee: '0.00000000',
      filled_at: 1795766399,
      reverted: true,
      receipt: { journal_seq: 7, kind: 0, payload: 'AAEC', hash: 'ab'.repeat(32), key_id: 'e667e8d6b484d58c', signature: 'c2ln' },
      revert_receipt: { journal_seq: 9, kind: 1, payload: 'AAED', hash: 'cd'.repeat(32), key_id: 'e667e8d6b484d58c', signature: 'c2lo' },
    };
    for (const body of [{ rows: [fill] }, { rows: [fill], next_cursor: '18446744073709551' }, { rows: [{ ...fill, revert_receipt: null }] }]) {
      expect(await written(ROUTES['query.rfq-fills'].response, body)).toBe(JSON.stringify(body));
    }
    // The taker's row: its copies of the receipts carry the salt (docs/spec/design.md 16), and it is written.
    const salt = 'ef'.repeat(32);
    const takers = {
      ...fill,
      role: 'taker' as const,
      receipt: { ...fill.receipt!, taker_salt: salt },
      revert_receipt: { ...fill.revert_receipt!, taker_salt: salt },
    };
    const body = { rows: [takers, fill] };
    expect(await written(ROUTES['query.rfq-fills'].response, body)).toBe(JSON.stringify(body));
  });

  it('writes balance rows exactly as JSON.stringify would', async () => {
    const row: BalanceRow = {
      account_id: 0,
      currency: 'USDC',
      available: '0.00000000',
      locked: '1.50000000',
      total: '1.50000000',
      updated_at: '1970-01-01T00:00:00.000Z',
    };
    expect(await written(ROUTES['query.balances'].response, { rows: [row] })).toBe(JSON.stringify({ rows: [row] }));
  });

  it('lists every field as required and allows no other', () => {
    for (const schema of [BALANCE_ROW, RFQ_POSITION_ROW, RFQ_FILL_ROW]) {
      expect([...schema.required].sort()).toEqual(Object.keys(schema.properties).sort());
      expect(schema.additionalProperties).toBe(false);
    }
  });
});
