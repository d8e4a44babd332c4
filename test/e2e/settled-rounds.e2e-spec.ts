import { Clock } from '../../src/common/clock';
import { Database } from '../../src/common/database/database';
import { InstrumentRepository } from '../../src/modules/instruments/instrument.repository';
import { InstrumentsService } from '../../src/modules/instruments/instruments.service';
import { MarketDataService } from '../../src/modules/market-data/market-data.service';
import { Http, RpcClient } from './clients';
import { DAY, expirationIn, signInHttp, signInWs } from './factories';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, clientRef, expectRfqError, leg, listRound, rfqTrader } from './rfq-support';

/** Rounds settled more than 7 days ago (one a day), and the strikes of each (a call and a put each). */
const OLD_ROUNDS = 300;
const STRIKES = [100, 140, 150, 160];
const PER_ROUND = STRIKES.length * 2;
/** Rounds settled within the last 7 days. */
const RECENT_ROUNDS = 5;

/**
 * Stores `rounds` settled rounds of `asset`, one a UTC day back from `newestExpiry`, each settled
 * `settledAfter` seconds after its expiry, with their instruments (set-based inserts: no admin call).
 */
async function seedSettledRounds(db: Database, asset: string, newestExpiry: number, rounds: number, settledAfter: number): Promise<void> {
  await db.exec(
    `INSERT INTO expirations (asset, expiry, utc_date, settled, settlement_price, settled_at)
     SELECT $1, e, (to_timestamp(e) AT TIME ZONE 'UTC')::date, true, 150000000, to_timestamp(e + $4)
       FROM (SELECT $2::bigint - g * ${DAY} AS e FROM generate_series(0, $3::int - 1) g) r`,
    [asset, newestExpiry, rounds, settledAfter],
  );
  await db.exec(
    `INSERT INTO instruments (symbol, asset, strike, kind, expiry, settled, settlement_price)
     SELECT x.asset || '-' || upper(to_char(to_timestamp(x.expiry) AT TIME ZONE 'UTC', 'FMDDMONYY')) || '-' || s || '-' || CASE k WHEN 'call' THEN 'C' ELSE 'P' END,
            x.asset, s * 1000000, k, x.expiry, true, 150000000
       FROM expirations x, unnest($2::int[]) s, unnest(ARRAY['call', 'put']) k
      WHERE x.asset = $1`,
    [asset, STRIKES],
  );
}

/**
 * docs/spec/design.md section 17, "Settled rounds leave memory": an instance holds the instruments
 * of open rounds and of rounds settled within the last 7 days; older ones are read from the
 * database when a listing asks for settled instruments, and whatever needs one (a position, a
 * refused leg) reads it from there.
 */
let env: Environment;
let app: TestApp;
let taker: RfqTrader;
let ws: RpcClient;
const view = () => app.app.get(InstrumentsService);
const oldestOldExpiry = expirationIn(-8) - (OLD_ROUNDS - 1) * DAY;
let oldSymbol: string;
let loadedAtStart: number[];

beforeAll(async () => {
  env = await Environment.create();
  app = await env.start();
  taker = await rfqTrader(app, ['taker']);
  await listRound(app, 'NEW', expirationIn(3), ['140', '150', '160']);
  const db = app.app.get(Database);
  // OLD: 300 rounds, the newest expired 8 days ago and settled an hour after its expiry.
  await seedSettledRounds(db, 'OLD', expirationIn(-8), OLD_ROUNDS, 3600);
  // RCT: 5 rounds expired 1 to 5 days ago, settled an hour after.
  await seedSettledRounds(db, 'RCT', expirationIn(-1), RECENT_ROUNDS, 3600);
  // EDGE: one round settled 7 days ago less 10 minutes: held at start, crosses the line while the instance runs.
  await seedSettledRounds(db, 'EDGE', expirationIn(-7), 1, 0);
  await db.exec(`UPDATE expirations SET settled_at = now() - make_interval(secs => $1) WHERE asset = 'EDGE'`, [7 * DAY - 600]);
  oldSymbol = (await db.one<{ symbol: string }>(`SELECT symbol FROM instruments WHERE asset = 'OLD' AND expiry = $1 AND strike = 150000000 AND kind = 'put'`, [
    oldestOldExpiry,
  ]))!.symbol;
  await db.exec(`INSERT INTO instrument_ivs (symbol, iv, updated_at) VALUES ($1, 700000, now() - interval '300 days')`, [oldSymbol]);
  // The taker held 2 of it when its round settled (a position 300 days old).
  await db.exec(
    `INSERT INTO positions (account_id, instrument, quantity, settled, settlement_amount, avg_num, avg_den, average_price)
     VALUES ($1, $2, 2000000, true, 0, 5000000, 1, 5000000)`,
    [taker.accountId, oldSymbol],
  );
  await taker.client.close();
  await app.close();

  // A fresh start over that history: count what the instruments view reads.
  const held = jest.spyOn(InstrumentRepository.prototype, 'held');
  app = await env.start();
  loadedAtStart = await Promise.all(held.mock.results.map(async (r) => ((await r.value) as unknown[]).length));
  held.mockRestore();
  ws = await RpcClient.connect(app.wsUrl);
  taker = { ...taker, client: (await signInWs(app, taker.wallet)).client };
}, 300_000);

afterAll(async () => {
  await ws?.close();
  await taker?.client.close();
  await app?.close();
  await env?.destroy();
}, 60_000);

describe('settled rounds leave memory (design.md section 17): start-up', () => {
  it('start-up reads and holds the open and recently settled rounds only', () => {
    const expected = 6 + RECENT_ROUNDS * PER_ROUND + PER_ROUND; // NEW, RCT, EDGE
    expect(loadedAtStart).toEqual([expected]);
    const heldNow = view().list({ includeSettled: true });
    expect(heldNow).toHaveLength(expected);
    expect(new Set(heldNow.map((i) => i.asset))).toEqual(new Set(['NEW', 'RCT', 'EDGE']));
    expect(view().get(oldSymbol)).toBeUndefined();
    expect(app.app.get(MarketDataService).iv(oldSymbol)).toBeNull();
  });
});

describe('settled rounds leave memory (design.md section 17): listings', () => {
  it('include_settled still lists the older settled instruments, read from the database, in listing order', async () => {
    const http = new Http(app.url);
    const old = (await http.get(`/v1/instruments?asset=OLD&include_settled=true`)).body.instruments;
    expect(old).toHaveLength(OLD_ROUNDS * PER_ROUND);
    expect(old[0]).toEqual({
      symbol: expect.stringMatching(/^OLD-/),
      asset: 'OLD',
      strike: '100',
      kind: 'call',
      expiry: oldestOldExpiry,
      paused: false,
      settled: true,
      settlement_price: '150',
      created_at: expect.any(Number),
    });
    const order = old.map((i: any) => [i.expiry, Number(i.strike), i.kind]);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)));
    expect((await http.get(`/v1/instruments?asset=OLD`)).body.instruments).toEqual([]);

    // Every asset: the held rounds and the stored ones merged in one order (asset, expiry, strike, kind).
    const all = (await http.get(`/v1/instruments?include_settled=true`)).body.instruments;
    expect(all).toHaveLength(6 + (RECENT_ROUNDS + 1 + OLD_ROUNDS) * PER_ROUND);
    expect([...new Set(all.map((i: any) => i.asset))]).toEqual(['EDGE', 'NEW', 'OLD', 'RCT']);
    const key = (i: any) => [i.asset, i.expiry, Number(i.strike), i.kind];
    const cmp = (a: unknown[], b: unknown[]) => {
      for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return (a[k] as number) < (b[k] as number) ? -1 : 1;
      return 0;
    };
    expect(all.every((i: any, n: number) => n === 0 || cmp(key(all[n - 1]), key(i)) < 0)).toBe(true);
    expect(new Set(all.map((i: any) => i.symbol)).size).toBe(all.length);

    // One old round by expiry, over JSON-RPC too, with the IV stored for it and its mark.
    const round = await ws.result('public/get_instruments', { expiry: oldestOldExpiry, include_settled: true });
    expect(round.instruments.map((i: any) => [i.strike, i.kind])).toEqual(
      STRIKES.flatMap((s) => [
        [String(s), 'call'],
        [String(s), 'put'],
      ]),
    );
    const put = round.instruments.find((i: any) => i.symbol === oldSymbol);
    expect(put).toMatchObject({ asset: 'OLD', settled: true, iv: '0.7', mark_price: null }); // no OLD index price: no mark
    expect(Object.keys(put).sort()).toEqual([
      'asset',
      'created_at',
      'expiry',
      'iv',
      'kind',
      'mark_price',
      'paused',
      'settled',
      'settlement_price',
      'strike',
      'symbol',
    ]);
    expect((await ws.result('public/get_instruments', { expiry: oldestOldExpiry })).instruments).toEqual([]);
  });
});

describe('settled rounds leave memory (design.md section 17): positions and the 7-day line', () => {
  it('a position in a round settled 300 days ago is still read, and a leg of that round is refused as settled', async () => {
    const { http } = await signInHttp(app, taker.wallet);
    const rows = (await http.get('/query/rfq-positions?status=settled')).body.rows;
    expect(rows).toEqual([expect.objectContaining({ instrument: oldSymbol, asset: 'OLD', expiry: oldestOldExpiry, settled: true, quantity: '2.00000000' })]);
    const reply = await taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg(oldSymbol, '1')] });
    expectRfqError(reply, 'RFQ_INVALID_INSTRUMENT');
    expect(reply.error.data.message).toBe(`legs[0]: ${oldSymbol} has settled`);
    const unknown = await taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg('OLD-1JAN20-150-P', '1')] });
    expect(unknown.error.data.message).toBe('legs[0]: "OLD-1JAN20-150-P" is not a listed instrument');
  });

  it('a round that crosses the 7-day line while the instance runs leaves the view at the next sweep', async () => {
    const edge = view()
      .list({ asset: 'EDGE', includeSettled: true })
      .map((i) => i.symbol);
    expect(edge).toHaveLength(PER_ROUND);
    const clock = app.app.get(Clock);
    const now = clock.now();
    expect(view().sweep(now)).toBe(0);
    // Twenty minutes on: EDGE's round settled 7 days ago.
    const later = jest.spyOn(clock, 'now').mockReturnValue(now + 1200);
    try {
      expect(view().sweep()).toBe(PER_ROUND);
      expect(edge.map((s) => view().get(s))).toEqual(edge.map(() => undefined));
      expect(view().list({ includeSettled: true })).toHaveLength(6 + RECENT_ROUNDS * PER_ROUND);
      // Still listed, from the database now, once.
      const listed = (await new Http(app.url).get(`/v1/instruments?asset=EDGE&include_settled=true`)).body.instruments;
      expect(listed.map((i: any) => i.symbol).sort()).toEqual([...edge].sort());
    } finally {
      later.mockRestore();
    }
  });
});
