/**
 * Property test of the ledger over the real API: a seeded random walk of deposits, withdrawals,
 * RFQs with quotes and accepts (fills or refusals), admin reverts, index moves (a third of them
 * jumps past the stress range: x2.5 to x4, or down to x0.25 to x0.4) and forced settlements at any
 * price (up to five times the index: beyond U, where totals go negative). After every step the
 * SQL invariants hold (invariants.ts: every lock at the latest index, cash conserved with
 * negative totals counted), and every account's total, lock and positions equal an independent
 * model built from the domain functions (fold, settlement split, lock at the model's index).
 * Seed: LEDGER_PROPERTY_SEED (default fixed), steps: LEDGER_PROPERTY_STEPS (default 60 in
 * `npm run test:long`, 40 in `npm test`: the walk checks it made 40);
 * `scripts/ledger-property-seeds.sh 1 20` runs seeds 1 to 20.
 */
import { formatRfq, parseRfqSigned } from '@legwork/protocol';
import { positionDeltas } from '../../src/modules/ledger/domain/fold';
import { portfolioLock } from '../../src/modules/ledger/domain/lock';
import { settlementPayments } from '../../src/modules/ledger/domain/settlement';
import { parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type Rows, appRows, violations } from './invariants';
import { type RfqTrader, type Round, expirationIn, leg, listRound, rfqTrader } from './rfq-support';
import { PositionAverage1763800000003 } from '../../migrations/1763800000003-PositionAverage';
import { Database } from '../../src/common/database/database';
import { M, acceptParams, balanceOf, deposit, feeAccountId, marketData, positionsOf, quoted, waitForState, withdraw } from './support/ledger';
import { repetitions } from './support/long';
import { prng } from './support/prng';

const SEED = Number(process.env.LEDGER_PROPERTY_SEED ?? 20251122);
const STEPS = Number(process.env.LEDGER_PROPERTY_STEPS ?? repetitions(40, 60));
const STRIKES = ['90', '100', '110', '120'];
const INDEX = 100n * M;
/** The model's index of PA, moved by the walk. */
let index = INDEX;

interface ModelFill {
  rfqId: string;
  taker: number;
  maker: number;
  side: 'buy' | 'sell';
  legs: Array<{ instrument: string; quantity: bigint }>;
  price: bigint;
  fee: bigint;
  round: Round;
  reverted: boolean;
}

describe(`Ledger property (seed ${SEED}, ${STEPS} steps): invariants and the model hold after every step`, () => {
  let env: Environment;
  let app: TestApp;
  let rows: Rows;
  let admin: Http;
  const rounds: Round[] = [];
  const settled = new Set<Round>();
  const takers: RfqTrader[] = [];
  const makers: RfqTrader[] = [];
  let feeId: number;

  // The model.
  const totals = new Map<number, bigint>();
  const positions = new Map<number, Map<string, bigint>>();
  const fills: ModelFill[] = [];
  const roundOf = new Map<string, Round>();
  const add = (account: number, amount: bigint) => totals.set(account, (totals.get(account) ?? 0n) + amount);
  const fold = (account: number, instrument: string, quantity: bigint) => {
    const book = positions.get(account) ?? new Map<string, bigint>();
    book.set(instrument, (book.get(instrument) ?? 0n) + quantity);
    positions.set(account, book);
  };
  const modelLock = (account: number) => {
    const open = [...(positions.get(account) ?? new Map()).entries()]
      .filter(([instrument, q]) => q !== 0n && !settled.has(roundOf.get(instrument)!))
      .map(([instrument, quantity]) => {
        const s = parseSymbol(instrument)!;
        return { asset: s.asset, expiry: roundOf.get(instrument)!.expiry, strike: s.strike, kind: s.kind, quantity };
      });
    return portfolioLock(open, { indexByAsset: { PA: index }, lockUpsideBps: 10_000 });
  };

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', SWEEP_INTERVAL_MS: '500' });
    app = await env.start();
    rows = appRows(app);
    admin = new Http(app.url).admin();
    for (const days of [10, 11, 12]) {
      const round = await listRound(app, 'PA', expirationIn(days), STRIKES);
      rounds.push(round);
      for (const strike of STRIKES) for (const kind of ['call', 'put'] as const) roundOf.set(round.symbol(strike, kind), round);
    }
    await marketData(app, 'PA', '100', '0.7');
    for (let i = 0; i < 3; i++) takers.push(await rfqTrader(app, ['taker']));
    for (let i = 0; i < 3; i++) makers.push(await rfqTrader(app, ['quoter']));
    feeId = feeAccountId(app);
    totals.set(feeId, (await balanceOf(app, feeId)).total);
  });
  afterAll(async () => {
    for (const t of [...takers, ...makers]) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  // The walk's steps: each draws from `random` in the order the walk always has (a seed gives the same walk) and says what it did.
  let random: () => number;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const amount = (min: number, max: number) => (min + random() * (max - min)).toFixed(2);
  const accounts = () => [...takers, ...makers].map((t) => t.accountId);

  const depositStep = async (): Promise<string> => {
    const who = pick([...takers, ...makers]);
    // Deposits grow with the index (locks do), so that the walk keeps trading after jumps up.
    const sum = amount(1, 300 * Math.max(1, Number(index) / Number(INDEX)));
    await deposit(app, who.accountId, sum);
    add(who.accountId, parseRfqSigned(sum));
    return 'deposit';
  };

  const withdrawStep = async (): Promise<string> => {
    const who = pick([...takers, ...makers]);
    const free = (await balanceOf(app, who.accountId)).available;
    const ask = random() < 0.8 ? (free * BigInt(Math.floor(random() * 90))) / 100n : free + 1n;
    if (ask > 0n) {
      const res = await withdraw(app, who.accountId, formatRfq(ask));
      expect(res.status).toBe(ask <= free ? 200 : 409);
      if (res.status === 200) add(who.accountId, -ask);
    }
    return 'withdraw';
  };

  const indexStep = async (): Promise<string> => {
    const jump = random() < 1 / 3;
    const factor = jump ? (random() < 0.5 ? 2.5 + random() * 1.5 : 0.25 + random() * 0.15) : 0.7 + random() * 0.6;
    index = BigInt(Math.max(1, Math.round(Number(index) * factor)));
    await marketData(app, 'PA', formatRfq(index), '0.7');
    return `${jump ? 'index jump' : 'index move'} ${formatRfq(index)}`;
  };

  const tradeStep = async (): Promise<string> => {
    const open = rounds.filter((x) => !settled.has(x));
    const round = pick(open);
    const taker = pick(takers);
    const maker = pick(makers);
    const count = 1 + Math.floor(random() * 3);
    const symbols = [...roundOf.keys()]
      .filter((s) => roundOf.get(s) === round)
      .sort(() => random() - 0.5)
      .slice(0, count);
    const cents = (min: number, max: number) => BigInt(min + Math.floor(random() * (max - min + 1))) * 10_000n;
    const legs = symbols.map((s) => leg(s, formatRfq((random() < 0.5 ? -1n : 1n) * cents(25, 400))));
    const bid = cents(-500, 1500);
    const ask = bid + cents(0, 200);
    const q = await quoted(taker, maker, round.expiry, legs, { bid: formatRfq(bid), ask: formatRfq(ask) });
    const side = random() < 0.5 ? 'buy' : 'sell';
    const reply = await taker.client.call('rfq.accept', acceptParams(taker.wallet, q, side));
    if (reply.error) {
      expect(['RFQ_TAKER_UNFUNDED', 'RFQ_BALANCE_INSUFFICIENT']).toContain(reply.error.data.error);
      return `trade refused ${reply.error.data.error}`;
    }
    const done = await waitForState(taker, q.rfqId, ['filled', 'failed']);
    if (done.state === 'filled') {
      expect(done.fill.price).toBe(formatRfq(side === 'buy' ? ask : bid));
      const modelLegs = legs.map((l) => ({ instrument: l.instrument, quantity: parseRfqSigned(l.quantity) }));
      const fill: ModelFill = {
        rfqId: q.rfqId,
        taker: taker.accountId,
        maker: maker.accountId,
        side,
        legs: modelLegs,
        price: parseRfqSigned(done.fill.price),
        fee: parseRfqSigned(done.fill.fee),
        round,
        reverted: false,
      };
      fills.push(fill);
      apply(fill, 1n);
    }
    return `trade ${done.state}${done.failure ? ` ${done.failure.error}` : ''}`;
  };

  const revertStep = async (): Promise<string> => {
    const live = fills.filter((f) => !f.reverted && !settled.has(f.round));
    if (!live.length) return 'revert skipped (nothing to revert)';
    const fill = pick(live);
    const res = await admin.post(`/v1/admin/rfq/${fill.rfqId}/revert`);
    if (res.status !== 200) {
      expect([res.status, res.body.error]).toEqual([409, expect.stringMatching(/free balance/)]);
      return 'revert refused';
    }
    fill.reverted = true;
    apply(fill, -1n);
    return 'revert';
  };

  const settleStep = async (): Promise<string> => {
    const open = rounds.filter((x) => !settled.has(x));
    if (open.length <= 1) return 'settle skipped (one round left)';
    const round = open[0];
    // Any price: up to five times the index, past U = 2 x max(index, strike) a third of the time.
    const price = BigInt(Math.floor(random() * 5 * Number(index))) + 7n;
    const res = await admin.post('/v1/admin/instruments/settle-expiration', {
      asset: 'PA',
      expiration: round.expiry,
      settlement_price: formatRfq(price),
    });
    expect(res.status).toBe(200);
    const held = [...positions.entries()].flatMap(([account, book]) =>
      [...book.entries()]
        .filter(([instrument]) => roundOf.get(instrument) === round)
        .map(([instrument, quantity]) => {
          const s = parseSymbol(instrument)!;
          return { accountId: account, instrument, kind: s.kind, strike: s.strike, quantity };
        }),
    );
    for (const p of settlementPayments(held, price)) add(p.accountId, p.amount);
    settled.add(round);
    return 'settle';
  };

  /** Each step, by the draw it falls under. */
  const walk: Array<[number, () => Promise<string>]> = [
    [0.12, depositStep],
    [0.2, withdrawStep],
    [0.3, indexStep],
    [0.78, tradeStep],
    [0.93, revertStep],
    [Infinity, settleStep],
  ];

  /**
   * After a step: the invariants hold, and every account's total, lock and positions are the model's.
   * Counts the steps that left an account under-collateralized or in debt.
   */
  const checkStep = async (step: number, action: string, log: string[], counts: Record<string, number>) => {
    const broken = await violations(rows);
    if (broken.length) throw new Error(`step ${step} (${action}) broke invariants:\n${broken.join('\n')}\n${log.join('\n')}`);
    let under = false;
    let debt = false;
    for (const account of [...accounts(), feeId]) {
      const book = await balanceOf(app, account);
      under ||= book.available < 0n;
      debt ||= book.total < 0n;
      const expected = { total: totals.get(account) ?? 0n, locked: account === feeId ? 0n : modelLock(account) };
      if (book.total !== expected.total || book.locked !== expected.locked) {
        throw new Error(
          `step ${step} (${action}): account ${account} is ${JSON.stringify({ total: String(book.total), locked: String(book.locked) })}, the model says ${JSON.stringify({ total: String(expected.total), locked: String(expected.locked) })}\n${log.join('\n')}`,
        );
      }
      if (account === feeId) continue;
      const listed = (await positionsOf(app, account, 'all')).map((p) => [p.instrument, p.quantity, p.settled]);
      expect([step, account, listed]).toEqual([step, account, modelPositions(account)]);
    }
    // How often the walk reached the states of docs/spec/design.md section 12 (reported below).
    if (under) counts['steps under-collateralized'] = (counts['steps under-collateralized'] ?? 0) + 1;
    if (debt) counts['steps with a debt'] = (counts['steps with a debt'] ?? 0) + 1;
  };

  /** The model's open and settled positions of `account`, as the positions query lists them. */
  const modelPositions = (account: number) =>
    [...(positions.get(account) ?? new Map()).entries()]
      .filter(([, q]) => q !== 0n)
      .map(([instrument, q]) => [instrument, (q < 0n ? '-' : '') + formatRfq(q < 0n ? -q : q), settled.has(roundOf.get(instrument)!)] as const)
      .sort((a, b) => roundOf.get(a[0])!.expiry - roundOf.get(b[0])!.expiry || (a[0] < b[0] ? -1 : 1))
      .map(([instrument, q, s]) => [instrument, toHttp(q), s]);

  it('a random walk over the API', async () => {
    random = prng(SEED);
    const log: string[] = [];
    const counts: Record<string, number> = {};

    // Everyone starts with something (one taker and one maker with little).
    for (const t of [...takers, ...makers]) {
      const sum = t === takers[2] ? '5' : t === makers[2] ? '50' : amount(200, 2000);
      await deposit(app, t.accountId, sum);
      add(t.accountId, parseRfqSigned(sum));
    }

    for (let step = 0; step < STEPS; step++) {
      const r = random();
      const action = await walk.find(([below]) => r < below)![1]();
      counts[action.split(' ').slice(0, 2).join(' ')] = (counts[action.split(' ').slice(0, 2).join(' ')] ?? 0) + 1;
      log.push(`${step}: ${action}`);
      await checkStep(step, action, log, counts);
    }
    // The walk did what it is for.
    expect(log.length).toBeGreaterThanOrEqual(40);
    expect(fills.length).toBeGreaterThan(5);
    expect(counts['trade filled'] ?? 0).toBeGreaterThan(5);
    process.stdout.write(`ledger property seed ${SEED}: ${JSON.stringify(counts)}\n`);
  }, 300_000);

  it("the migration that stores positions' averages computes, from the walk's fills, what the fills stored", async () => {
    const stored = `SELECT account_id, instrument, avg_num::text, avg_den::text, average_price::text FROM positions ORDER BY account_id, instrument`;
    const before = await rows(stored);
    expect(before.filter((p) => p.average_price !== null).length).toBeGreaterThan(5);
    const runner = app.app.get(Database).dataSource.createQueryRunner();
    try {
      const migration = new PositionAverage1763800000003();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await rows(stored)).toEqual(before);
    expect(await violations(rows)).toEqual([]);
  });

  function apply(fill: ModelFill, sign: 1n | -1n): void {
    const deltas = positionDeltas(fill.legs, fill.side);
    for (const d of deltas.taker) fold(fill.taker, d.instrument, sign * d.quantity);
    for (const d of deltas.maker) fold(fill.maker, d.instrument, sign * d.quantity);
    const takerPremium = fill.side === 'buy' ? -fill.price : fill.price;
    add(fill.taker, sign * (takerPremium - fill.fee));
    add(fill.maker, sign * -takerPremium);
    add(feeId, sign * fill.fee);
  }
});

/** "1.5" / "-2" → "1.50000000" / "-2.00000000" */
function toHttp(text: string): string {
  const [whole, frac = ''] = text.split('.');
  return `${whole}.${frac.padEnd(8, '0')}`;
}
