import Fastify from 'fastify';
import { I64_MAX, ROUTES, type RfqPositionRow, formatHttp } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { withPlainStrings } from '../../src/common/http/plain-strings';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { type Round, expirationIn, listRound } from './rfq-support';

/**
 * GET /query/rfq-positions' body is written by PostgreSQL (PositionRepository.responseBody) and sent
 * as it is: its text must be what the route's declared serializer writes for the same rows, byte
 * for byte (key order, number and decimal forms, null, escapes), with the same content type.
 */

/** The body as Fastify writes it through the route's declared response schema (as declared-routes.ts compiles it). */
async function declaredText(body: { rows: RfqPositionRow[] }): Promise<string> {
  const server = Fastify();
  server.get('/', { schema: { response: { 200: withPlainStrings(ROUTES['query.rfq-positions'].response) } } }, async () => body);
  const res = await server.inject({ method: 'GET', url: '/' });
  await server.close();
  return res.payload;
}

interface Held {
  instrument: string;
  asset: string;
  strike: bigint;
  kind: 'call' | 'put';
  expiry: number;
  quantity: bigint;
  average: bigint | null;
  settled: boolean;
  updatedAt: string;
}

/** Quantities from one micro-unit to the largest bigint, both signs; no average, a small one and a large one; microseconds the ISO form truncates. */
function positionsToHold(near: Round, far: Round): Array<Omit<Held, 'asset' | 'expiry' | 'strike'> & { round: Round }> {
  return [
    { round: far, instrument: far.symbol('160', 'put'), kind: 'put', quantity: -1n, average: null, settled: false, updatedAt: '2026-11-23 12:58:28.213456+00' },
    {
      round: near,
      instrument: near.symbol('150'),
      kind: 'call',
      quantity: 12_500_000n,
      average: 3_141_593n,
      settled: false,
      updatedAt: '2026-11-23 12:58:28.999999+00',
    },
    {
      round: near,
      instrument: near.symbol('140', 'put'),
      kind: 'put',
      quantity: -I64_MAX,
      average: 1n,
      settled: false,
      updatedAt: '1999-12-31 23:59:59.9996+00',
    },
    { round: near, instrument: near.symbol('160'), kind: 'call', quantity: I64_MAX, average: I64_MAX, settled: true, updatedAt: '2026-03-04 05:06:07.1+02' },
    { round: far, instrument: far.symbol('140'), kind: 'call', quantity: 7n, average: 0n, settled: true, updatedAt: '2026-01-01 00:00:00+00' },
  ];
}

describe('GET /query/rfq-positions: the text PostgreSQL writes is the declared serializer’s', () => {
  let env: Environment;
  let app: TestApp;
  let db: Database;
  let accountId: number;
  const held: Held[] = [];

  const get = async (query: string) => {
    const res = await fetch(`${app.url}/query/rfq-positions?account_id=${accountId}${query}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const expected = (rows: Held[]): RfqPositionRow[] =>
    rows.map((h) => ({
      account_id: accountId,
      instrument: h.instrument,
      asset: h.asset,
      strike: formatHttp(h.strike),
      kind: h.kind,
      expiry: h.expiry,
      settled: h.settled,
      quantity: formatHttp(h.quantity),
      average_price: h.average === null ? null : formatHttp(h.average),
      updated_at: new Date(h.updatedAt).toISOString(),
    }));
  const byExpiryThenSymbol = (a: Held, b: Held) => a.expiry - b.expiry || (a.instrument < b.instrument ? -1 : a.instrument > b.instrument ? 1 : 0);

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    db = app.app.get(Database);
    const near = await listRound(app, 'SOL', expirationIn(2));
    const far = await listRound(app, 'SOL', expirationIn(9));
    [{ id: accountId }] = await db.rows<{ id: number }>(
      `INSERT INTO accounts (wallet, roles) VALUES ('positions-text-wallet', '{taker}') RETURNING id::float8 AS id`,
    );
    const made = positionsToHold(near, far);
    for (const m of made) {
      const strike = BigInt(m.instrument.split('-')[2]) * 1_000_000n;
      held.push({
        instrument: m.instrument,
        asset: 'SOL',
        strike,
        kind: m.kind,
        expiry: m.round.expiry,
        quantity: m.quantity,
        average: m.average,
        settled: m.settled,
        updatedAt: m.updatedAt,
      });
      // The average's stored ratio is any positive one: only average_price is read.
      const average = m.average === null ? [null, null, null] : [m.average.toString(), '1', m.average.toString()];
      await db.exec(
        `INSERT INTO positions (account_id, instrument, quantity, settled, updated_at, avg_num, avg_den, average_price) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [accountId, m.instrument, m.quantity.toString(), m.settled, m.updatedAt, ...average],
      );
    }
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  it('open, settled and all: the declared serializer’s text of the expected rows, in order, as application/json', async () => {
    for (const [query, rows] of [
      ['', held.filter((h) => !h.settled)],
      ['&status=settled', held.filter((h) => h.settled)],
      ['&status=all', held],
      ['&status=all&limit=2', held],
    ] as const) {
      const limit = query.endsWith('limit=2') ? 2 : rows.length;
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(res.type).toBe('application/json; charset=utf-8');
      const want = expected([...rows].sort(byExpiryThenSymbol).slice(0, limit));
      expect(want.length).toBeGreaterThan(0);
      expect(res.text).toBe(await declaredText({ rows: want }));
    }
  });

  it('an account without positions: an empty page, written the same way', async () => {
    const [{ id }] = await db.rows<{ id: number }>(`INSERT INTO accounts (wallet, roles) VALUES ('positions-text-none', '{taker}') RETURNING id::float8 AS id`);
    const res = await fetch(`${app.url}/query/rfq-positions?account_id=${id}&status=all`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(await declaredText({ rows: [] }));
  });
});
