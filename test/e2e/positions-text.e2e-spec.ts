import Fastify from 'fastify';
import { I64_MAX, ROUTES, type RfqPositionRow, formatHttp } from '@legwork/protocol';
import { Database } from '../../src/common/database/database';
import { withPlainStrings } from '../../src/common/http/plain-strings';
import { formatSymbol, utcDateKey } from '../../src/modules/instruments/domain/symbol';
import { type PositionStatus, PositionRepository } from '../../src/modules/ledger/position.repository';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { describeBothDatabases } from './support/both-databases';

/**
 * GET /query/rfq-positions' body is written by PostgreSQL (PositionRepository.responseBody) and sent
 * as it is: its text must be what the route's declared serializer writes for the same rows, byte
 * for byte (key order, number and decimal forms, null, escapes), on both databases, and the route
 * must send it with the serializer's content type.
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
  strike: bigint;
  kind: 'call' | 'put';
  expiry: number;
  quantity: bigint;
  average: bigint | null;
  settled: boolean;
  updatedAt: string;
}

// Two expiries (08:00 UTC); quantities from one micro-unit to the largest bigint, both signs; no
// average, 0, 1 and the largest; microseconds the ISO form truncates, and an offset.
const NEAR = 1796112000;
const FAR = 1796716800;
const HELD: Held[] = [
  { expiry: FAR, strike: 160_000_000n, kind: 'put', quantity: -1n, average: null, settled: false, updatedAt: '2026-11-23 12:58:28.213456+00' },
  { expiry: NEAR, strike: 150_000_000n, kind: 'call', quantity: 12_500_000n, average: 3_141_593n, settled: false, updatedAt: '2026-11-23 12:58:28.999999+00' },
  { expiry: NEAR, strike: 140_500_000n, kind: 'put', quantity: -I64_MAX, average: 1n, settled: false, updatedAt: '1999-12-31 23:59:59.9996+00' },
  { expiry: NEAR, strike: 160_000_000n, kind: 'call', quantity: I64_MAX, average: I64_MAX, settled: true, updatedAt: '2026-03-04 05:06:07.1+02' },
  { expiry: FAR, strike: 140_000_000n, kind: 'call', quantity: 7n, average: 0n, settled: true, updatedAt: '2026-01-01 00:00:00+00' },
];
const symbolOf = (h: Held) => formatSymbol({ asset: 'SOL', expiry: h.expiry, strike: h.strike, kind: h.kind });

/** The instruments, an account holding HELD and one holding nothing, written straight into the tables. */
async function seed(db: Database, tag: string): Promise<{ holder: number; empty: number }> {
  for (const expiry of [NEAR, FAR]) {
    await db.exec(`INSERT INTO expirations (asset, expiry, utc_date) VALUES ('SOL', $1, $2::date) ON CONFLICT DO NOTHING`, [expiry, utcDateKey(expiry)]);
  }
  for (const h of HELD) {
    await db.exec(`INSERT INTO instruments (symbol, asset, strike, kind, expiry) VALUES ($1, 'SOL', $2, $3, $4) ON CONFLICT DO NOTHING`, [
      symbolOf(h),
      h.strike.toString(),
      h.kind,
      h.expiry,
    ]);
  }
  const account = async (name: string) =>
    (await db.rows<{ id: number }>(`INSERT INTO accounts (wallet, roles) VALUES ($1, '{taker}') RETURNING id::float8 AS id`, [`${tag}-${name}`]))[0].id;
  const [holder, empty] = [await account('holder'), await account('empty')];
  for (const h of HELD) {
    // The average's stored ratio is any positive one: only average_price is read.
    const average = h.average === null ? [null, null, null] : [h.average.toString(), '1', h.average.toString()];
    await db.exec(
      `INSERT INTO positions (account_id, instrument, quantity, settled, updated_at, avg_num, avg_den, average_price) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [holder, symbolOf(h), h.quantity.toString(), h.settled, h.updatedAt, ...average],
    );
  }
  return { holder, empty };
}

/** What the route answers for `holder`'s positions in `status`, at most `limit`: by expiry, then symbol in byte order. */
function expected(accountId: number, status: PositionStatus, limit: number): RfqPositionRow[] {
  const rows = HELD.filter((h) => status === 'all' || h.settled === (status === 'settled'));
  const bytes = (h: Held) => Buffer.from(symbolOf(h));
  rows.sort((a, b) => a.expiry - b.expiry || Buffer.compare(bytes(a), bytes(b)));
  return rows.slice(0, limit).map((h) => ({
    account_id: accountId,
    instrument: symbolOf(h),
    asset: 'SOL',
    strike: formatHttp(h.strike),
    kind: h.kind,
    expiry: h.expiry,
    settled: h.settled,
    quantity: formatHttp(h.quantity),
    average_price: h.average === null ? null : formatHttp(h.average),
    updated_at: new Date(h.updatedAt).toISOString(),
  }));
}

describeBothDatabases('PositionRepository.responseBody: the declared serializer’s text', (getDb) => {
  it('open, settled, all and a limit: the expected rows, in order, byte for byte; no positions: an empty page', async () => {
    const { holder, empty } = await seed(getDb(), 'positions-text');
    const positions = new PositionRepository(getDb());
    for (const [status, limit] of [
      ['open', 500],
      ['settled', 500],
      ['all', 500],
      ['all', 2],
    ] as const) {
      const want = expected(holder, status, limit);
      expect(want.length).toBeGreaterThan(0);
      expect((await positions.responseBody(holder, status, limit)).json).toBe(await declaredText({ rows: want }));
    }
    expect((await positions.responseBody(empty, 'all', 500)).json).toBe(await declaredText({ rows: [] }));
  });
});

describe('GET /query/rfq-positions sends the text as it is', () => {
  let env: Environment;
  let app: TestApp;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  it('with the content type of a serialized body, for an account with positions and one without', async () => {
    const { holder, empty } = await seed(app.app.get(Database), 'positions-http');
    for (const [accountId, rows] of [
      [holder, expected(holder, 'all', 500)],
      [empty, []],
    ] as const) {
      const res = await fetch(`${app.url}/query/rfq-positions?account_id=${accountId}&status=all`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe(await declaredText({ rows: [...rows] }));
    }
  });
});
