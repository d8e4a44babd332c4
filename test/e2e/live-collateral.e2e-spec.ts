/**
 * Live collateral (docs/spec/design.md section 12), as a risk officer would try it: a writer's lock follows
 * the index at every market-data update; withdrawals, taker accepts and maker fills are judged on
 * the live `available`; a jump past the stress range shows up in GET /v1/admin/risk and /metrics;
 * a settlement beyond `U` leaves a visible debt that a deposit repays; cash is conserved
 * throughout (invariants after every test). The last test races fills against index updates.
 */
import { formatRfq } from '@legwork/protocol';
import { LiveCollateral1763800000014 } from '../../migrations/1763800000014-LiveCollateral';
import { Database } from '../../src/common/database/database';
import { locksOf, refreshLockGroups, repriceAsset } from '../../src/modules/ledger/collateral.sql';
import { rowsTx } from './support/rows-sql';
import { Client } from 'pg';
import { Http } from './clients';
import { Environment, METRICS_AUTH, type TestApp } from './harness';
import { type Rows, appRows, expectInvariants, violations } from './invariants';
import { type RfqTrader, type Round, expirationIn, leg, listRound, rfqTrader, sessionToken } from './rfq-support';
import { M, acceptAndFill, acceptParams, balanceOf, deposit, marketData, quoted, waitForState, withdraw } from './support/ledger';

let env: Environment;
let app: TestApp;
let admin: Http;
let rows: Rows;
let round: Round;
let writer: RfqTrader; // writes calls as a maker, and also trades as a taker
let buyer: RfqTrader; // the taker who buys the writer's calls
let other: RfqTrader; // a second maker (quotes the writer's own RFQs)
let second: RfqTrader; // a second taker
const traders: RfqTrader[] = [];

const call = () => round.symbol('150');
const risk = async () => {
  const res = await admin.get('/v1/admin/risk');
  expect(res.status).toBe(200);
  return res.body;
};
const gauges = async () => {
  const res = await new Http(app.url).request('GET', '/metrics', undefined, METRICS_AUTH);
  const text = String(res.body);
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { accounts: value('legwork_under_collateralized_accounts'), deficit: value('legwork_deficit_usdc') };
};

beforeAll(async () => {
  env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', SWEEP_INTERVAL_MS: '500' });
  app = await env.start();
  admin = new Http(app.url).admin();
  rows = appRows(app);
  round = await listRound(app, 'LC', expirationIn(10), ['100', '150', '200']);
  await marketData(app, 'LC', '150', '0.8');
  writer = await rfqTrader(app, ['taker', 'quoter']);
  buyer = await rfqTrader(app, ['taker']);
  other = await rfqTrader(app, ['quoter']);
  second = await rfqTrader(app, ['taker']);
  traders.push(writer, buyer, other, second);
  await deposit(app, writer.accountId, '700');
  await deposit(app, buyer.accountId, '5000');
  await deposit(app, other.accountId, '5000');
  await deposit(app, second.accountId, '5000');
});
afterEach(async () => {
  await expectInvariants(rows);
});
afterAll(async () => {
  for (const t of traders) await t.client.close();
  await app?.close();
  await env?.destroy();
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: the lock follows the index', () => {
  it('a short call is locked at the fill index; the lock follows the index within the update; withdrawals are judged on the live available', async () => {
    // The buyer buys 2 calls 150 from the writer for 20: at index 150 the worst case (U = 300) is 2 * 150.
    const q = await quoted(buyer, writer, round.expiry, [leg(call(), '2')], { bid: '19', ask: '20' });
    expect((await acceptAndFill(buyer, q, 'buy')).state).toBe('filled');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 720n * M, locked: 300n * M, available: 420n * M });

    // Index 200: U = 400, lock 2 * 250, written by the update itself (read right after its answer).
    await marketData(app, 'LC', '200', '0.8');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 720n * M, locked: 500n * M, available: 220n * M });

    const above = await withdraw(app, writer.accountId, '220.000001');
    expect([above.status, above.body.error]).toEqual([409, expect.stringMatching(/insufficient free balance: 220.00000000 available/)]);
    const below = await withdraw(app, writer.accountId, '100');
    expect(below.status).toBe(200);
    expect(below.body.balance).toMatchObject({ total: '620.00000000', locked: '500.00000000', available: '120.00000000' });
    expect(await risk()).toEqual({ accounts: [], totals: { total: '0.00000000', locked: '0.00000000', deficit: '0.00000000' } });
  });
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: a jump past the stress range', () => {
  it('a jump past the stress range: available negative, listed by the risk report and the metrics, withdrawals and taker accepts refused until a deposit, maker fills only towards the surface', async () => {
    // Index 400: U = 800, lock 2 * 650 = 1300 against a total of 620.
    await marketData(app, 'LC', '400', '0.8');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 620n * M, locked: 1300n * M, available: -680n * M });
    const listed = await new Http(app.url).admin().get(`/query/balances?account_id=${writer.accountId}`);
    expect(listed.body.rows[0]).toMatchObject({ total: '620.00000000', locked: '1300.00000000', available: '-680.00000000' });
    expect(await risk()).toEqual({
      accounts: [{ account_id: writer.accountId, total: '620.00000000', locked: '1300.00000000', available: '-680.00000000' }],
      totals: { total: '620.00000000', locked: '1300.00000000', deficit: '-680.00000000' },
    });
    expect(await gauges()).toEqual({ accounts: 1, deficit: 680 });

    // Withdrawals: none, however small.
    const refused = await withdraw(app, writer.accountId, '0.01');
    expect([refused.status, refused.body.error]).toEqual([409, expect.stringMatching(/under-collateralized \(available -680.00000000\)/)]);

    // As a taker: free_balance 0, so buying a put for 5 is unfunded.
    const put = await quoted(writer, other, round.expiry, [leg(round.symbol('100', 'put'), '1')], { bid: '4', ask: '5' });
    const unfunded = await writer.client.call('rfq.accept', acceptParams(writer.wallet, put, 'buy'));
    expect(unfunded.error?.data?.error).toBe('RFQ_TAKER_UNFUNDED');
    expect(unfunded.error.data.details).toMatchObject({ anchored: true, free_balance: '0' });

    // As a maker: writing one more call lowers its available (receives 1, locks 650 more): refused.
    const more = await quoted(second, writer, round.expiry, [leg(call(), '1')], { bid: '0.5', ask: '1' });
    const lower = await second.client.call('rfq.accept', acceptParams(second.wallet, more, 'buy'));
    expect(lower.error?.data?.error).toBe('RFQ_BALANCE_INSUFFICIENT');

    // Buying one call back at 300 releases 650 of lock for 300: available rises to -330, allowed.
    const back = await quoted(buyer, writer, round.expiry, [leg(call(), '1')], { bid: '300', ask: '301' });
    expect((await acceptAndFill(buyer, back, 'sell')).state).toBe('filled');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 320n * M, locked: 650n * M, available: -330n * M });
    expect((await risk()).totals.deficit).toBe('-330.00000000');

    // A deposit restores it: the same kind of accept goes through.
    await deposit(app, writer.accountId, '400');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 720n * M, locked: 650n * M, available: 70n * M });
    expect(await risk()).toMatchObject({ accounts: [] });
    expect(await gauges()).toEqual({ accounts: 0, deficit: 0 });
    const put2 = await quoted(writer, other, round.expiry, [leg(round.symbol('100', 'put'), '1')], { bid: '4', ask: '5' });
    expect((await acceptAndFill(writer, put2, 'buy')).state).toBe('filled');
  });
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: settlement beyond U', () => {
  it('settlement beyond U leaves a negative total, shown as it is, repaid first by a deposit; cash is conserved', async () => {
    const before = await balanceOf(app, writer.accountId);
    // The writer is short 1 call 150 (pays 850 at 1000, past U = 800) and long 1 put 100 (worthless).
    const res = await admin.post('/v1/admin/instruments/settle-expiration', { asset: 'LC', expiration: round.expiry, settlement_price: '1000' });
    expect(res.status).toBe(200);
    const after = await balanceOf(app, writer.accountId);
    expect(after).toEqual({ total: before.total - 850n * M, locked: 0n, available: before.total - 850n * M });
    expect(after.total).toBeLessThan(0n);
    const report = await risk();
    expect(report.accounts).toEqual([
      { account_id: writer.accountId, total: formatHttp8(after.total), locked: '0.00000000', available: formatHttp8(after.total) },
    ]);

    const debt = -after.total;
    await deposit(app, writer.accountId, formatRfq(debt - 10n * M));
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: -10n * M, locked: 0n, available: -10n * M });
    await deposit(app, writer.accountId, '25');
    expect(await balanceOf(app, writer.accountId)).toEqual({ total: 15n * M, locked: 0n, available: 15n * M });
    expect(await risk()).toMatchObject({ accounts: [] });
  });
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: fills racing index updates', () => {
  it('fills racing index updates: every lock ends at the latest index (invariants), with no deadlock', async () => {
    const race = await listRound(app, 'LR', expirationIn(11), ['100', '120']);
    await marketData(app, 'LR', '100', '0.6');
    const makers = [writer, other];
    const takers = [buyer, second];
    await deposit(app, writer.accountId, '20000');
    // Quoted one by one (a maker's quote nonces must rise in order); accepted all at once.
    const quotes = [];
    for (const i of [0, 1, 2, 3, 4, 5])
      quotes.push(await quoted(takers[i % 2], makers[i % 2], race.expiry, [leg(race.symbol('100'), '1')], { bid: '9', ask: '10' }));
    // Moves inside the fee tolerance (1 %): a larger one fails a fill accepted before it with
    // RFQ_PRICE_TOLERANCE (the fee, 3 bp of the index at the money, grows with it; out of the money it
    // is capped by the mark, which moves faster). Every move changes every short call's lock.
    const indexes = ['100.2', '99.9', '100.3', '100', '100.4', '100.1'];
    const fills = quotes.map(async (q, i) => {
      const taker = takers[i % 2];
      const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
      if (reply.error) return reply.error.data.error;
      const done = await waitForState(taker, q.rfqId, ['filled', 'failed']);
      return done.state === 'filled' ? 'filled' : `failed ${done.failure?.error}`;
    });
    // And updates of a second asset in which the same makers are short calls: two reprices over
    // the same balance rows at once (they take turns, never deadlock).
    const twin = await listRound(app, 'LT', expirationIn(11), ['100']);
    await marketData(app, 'LT', '100', '0.6');
    for (const [i, maker] of makers.entries()) {
      const q = await quoted(takers[i], maker, twin.expiry, [leg(twin.symbol('100'), '1')], { bid: '9', ask: '10' });
      expect((await acceptAndFill(takers[i], q, 'buy')).state).toBe('filled');
    }
    const updates = indexes.flatMap((index, i) => [
      new Promise((resolve) => setTimeout(resolve, i * 15)).then(() => marketData(app, 'LR', index, '0.6')),
      new Promise((resolve) => setTimeout(resolve, i * 15)).then(() => marketData(app, 'LT', index, '0.6')),
    ]);
    const outcomes = await Promise.all([...fills, ...updates]);
    expect(outcomes.slice(0, 6)).toEqual(Array(6).fill('filled'));
  });
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: the risk report', () => {
  it('GET /v1/admin/risk is an admin read, described in /openapi.json', async () => {
    expect((await new Http(app.url).get('/v1/admin/risk')).status).toBe(401);
    expect((await new Http(app.url).as(sessionToken(writer.wallet.address, writer.accountId, ['taker', 'quoter'])).get('/v1/admin/risk')).status).toBe(403);
    expect((await new Http(app.url).admin().get('/v1/admin/risk')).status).toBe(200);
    const spec = (await new Http(app.url).get('/openapi.json')).body;
    const schema = spec.paths['/v1/admin/risk'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(['accounts', 'totals']);
  });

  // Two connections to one PostgreSQL (the embedded database has one connection: nothing to race).
  (process.env.DATABASE_URL ? it : it.skip)(
    'an update waits for a fill in flight (its share lock of the index rows) and reprices what that fill committed',
    async () => {
      const wait = await listRound(app, 'LW', expirationIn(11), ['100']);
      await marketData(app, 'LW', '100', '0.6');
      const symbol = wait.symbol('100');
      const fill = new Client({ connectionString: env.env.DATABASE_URL });
      await fill.connect();
      const sql = rowsTx(async (text, params) => (await fill.query(text, params)).rows);
      try {
        // A fill's transaction, as FillService runs it: index rows share-locked first, then its writes.
        await fill.query('BEGIN');
        await fill.query(`SELECT asset FROM index_prices ORDER BY asset FOR SHARE`);
        await fill.query(`INSERT INTO positions (account_id, instrument, quantity) VALUES ($1, $3, -1000000), ($2, $3, 1000000)`, [
          second.accountId,
          buyer.accountId,
          symbol,
        ]);
        await refreshLockGroups(sql, [second.accountId, buyer.accountId]);
        // The short call 100's lock at index 100 (U = 200): 100.
        await fill.query(`UPDATE balances SET locked = locked + 100000000 WHERE account_id = $1`, [second.accountId]);
        let done = false;
        const update = marketData(app, 'LW', '150', '0.6').then(() => (done = true));
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(done).toBe(false); // waiting for the fill's share lock
        await fill.query('COMMIT');
        await update;
        // Repriced with the committed position (U = 300: the short call 100 locks 200, not the 100
        // written at index 100): every lock at the latest index, recomputed by lock.ts ((d) objects
        // to a position without a fill row: this fill is simulated).
        expect((await violations(rows)).filter((v) => !v.startsWith('(d)'))).toEqual([]);
      } finally {
        // Undo the simulated fill (it has no fill row: invariant (d) would object).
        await fill.query('ROLLBACK').catch(() => undefined);
        await fill.query(`DELETE FROM positions WHERE instrument = $1`, [symbol]);
        await refreshLockGroups(sql, [second.accountId, buyer.accountId]);
        const [lock] = (await locksOf(sql, [second.accountId], 10_000)).values();
        await fill.query(`UPDATE balances SET locked = $2 WHERE account_id = $1`, [second.accountId, lock.toString()]);
        await fill.end();
      }
    },
  );
});

describe('Live collateral: locks follow the market, shortfalls are refused and shown: the migration and other instances', () => {
  it('the migration fills lock_groups in from the open positions as the fills left them', async () => {
    const stored = `SELECT account_id::text, asset, expiry::text, worst::text, call_q::text, call_qk::text, top_strike::text FROM lock_groups ORDER BY 1, 2, 3`;
    // A spread and a put of its own, so that there are groups of several kinds to fill in.
    const own = await listRound(app, 'LM', expirationIn(12), ['100', '120']);
    await marketData(app, 'LM', '100', '0.6');
    const q = await quoted(buyer, writer, own.expiry, [leg(own.symbol('100'), '-2'), leg(own.symbol('120'), '1'), leg(own.symbol('100', 'put'), '1')], {
      bid: '1',
      ask: '2',
    });
    expect((await acceptAndFill(buyer, q, 'buy')).state).toBe('filled');
    const before = await rows(stored);
    expect(before.filter((g) => g.asset === 'LM').length).toBe(2);
    const runner = app.app.get(Database).dataSource.createQueryRunner();
    try {
      const migration = new LiveCollateral1763800000014();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await rows(stored)).toEqual(before);
  });

  it("an update written by another instance whose broadcast has not arrived: a fill here locks at the database's index, not its cache", async () => {
    const race = await listRound(app, 'LS', expirationIn(11), ['100']);
    await marketData(app, 'LS', '100', '0.6');
    // What another instance's update does in the database; this instance's cache still says 100.
    await app.app.get(Database).tx(async (sql) => {
      await sql.exec(`UPDATE index_prices SET index_price = 300000000, updated_at = now() WHERE asset = 'LS'`);
      await repriceAsset(sql, 'LS', 10_000);
    });
    const q = await quoted(buyer, writer, race.expiry, [leg(race.symbol('100'), '1')], { bid: '9', ask: '10' });
    expect((await acceptAndFill(buyer, q, 'buy')).state).toBe('filled');
    // Every lock at the stored index (300: the short call 100 locks 500; at the cached 100 it would lock 100),
    // checked before this instance's cache catches up.
    await expectInvariants(rows);
    await marketData(app, 'LS', '300', '0.6');
  });
});

function formatHttp8(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  return `${negative ? '-' : ''}${abs / M}.${(abs % M).toString().padStart(6, '0')}00`;
}
