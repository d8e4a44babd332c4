/**
 * Crash safety of the fill path (PostgreSQL + Redis only: CI sets DATABASE_URL). The server is
 * built once and run as a child process; a stream of accepts goes over `ws`; the child is killed
 * with SIGKILL in the middle of it and started again on the same database and Redis prefix.
 * Afterwards every accepted RFQ is filled or failed (the jobs in Redis, BullMQ's stalled-job
 * recovery and the ledger sweep finish them), none twice, and the invariants hold.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { Environment, type TestApp } from './harness';
import { pgRows, violations } from './invariants';
import { type RfqTrader, type Round, expirationIn, leg, listRound, rfqTrader } from './rfq-support';
import { Http } from './clients';
import { journalViolations } from './support/journal-chain';
import { type Quoted, acceptAndFill, acceptParams, deposit, marketData, quoted, sleep } from './support/ledger';
import { freePort } from '../fleet/free-port';
import { buildAppUnlessPrebuilt } from '../fleet/fleet';

const ROOT = join(__dirname, '..', '..');
const RFQS_PER_TAKER = 10;
const TAKERS = 4;
const whenPostgres = process.env.DATABASE_URL ? describe : describe.skip;

class Server {
  child: ChildProcess | null = null;
  output = '';
  constructor(
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  get app(): TestApp {
    const url = `http://127.0.0.1:${this.port}`;
    return { url, wsUrl: `ws://127.0.0.1:${this.port}/client` } as TestApp;
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...this.env, PORT: String(this.port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout.on('data', (d) => (this.output += d));
    child.stderr.on('data', (d) => (this.output += d));
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${this.output}`);
      try {
        if ((await fetch(`${this.app.url}/health`)).status === 200) return;
      } catch {
        /* not listening yet */
      }
      await sleep(200);
    }
    throw new Error(`server not healthy in time:\n${this.output}`);
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Quoted RFQs, RFQS_PER_TAKER per taker, to be accepted all at once: each taker's legs and side vary, the two makers alternate. */
async function quoteBook(round: Round, makers: RfqTrader[], takers: RfqTrader[]): Promise<Array<{ taker: RfqTrader; q: Quoted; side: 'buy' | 'sell' }>> {
  const book: Array<{ taker: RfqTrader; q: Quoted; side: 'buy' | 'sell' }> = [];
  for (let i = 0; i < RFQS_PER_TAKER; i++) {
    for (const [n, taker] of takers.entries()) {
      const legs = [leg(round.symbol(['140', '150', '160'][(i + n) % 3]), '1'), leg(round.symbol('150', 'put'), i % 2 ? '-0.5' : '0.5')];
      book.push({
        taker,
        q: await quoted(taker, makers[(i + n) % 2], round.expiry, legs, { expires_at: Math.floor(Date.now() / 1000) + 300 }),
        side: (i + n) % 2 ? 'sell' : 'buy',
      });
    }
  }
  return book;
}

/** The RFQs still accepted or submitting once the restarted server has had up to 3 minutes to finish them (0 as soon as none is). */
async function pendingAfterRecovery(db: Client): Promise<number> {
  const deadline = Date.now() + 180_000;
  let left = -1;
  while (Date.now() < deadline) {
    left = (await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE state IN ('accepted', 'submitting')`)).rows[0].n;
    if (left === 0) break;
    await sleep(500);
  }
  return left;
}

/** Backends of this database (but this one) matching `where`, polled until there is one (up to 30 s): how many. */
async function untilSome(db: Client, where: string): Promise<number> {
  const sql = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`;
  const until = Date.now() + 30_000;
  for (;;) {
    const n: number = (await db.query(sql)).rows[0].n;
    if (n > 0 || Date.now() > until) return n;
    await sleep(50);
  }
}

/** Polls until no backend of this database (but this one) matches `where` (up to 30 s). */
async function untilNone(db: Client, where: string): Promise<void> {
  const sql = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${where}`;
  const until = Date.now() + 30_000;
  while ((await db.query(sql)).rows[0].n > 0 && Date.now() < until) await sleep(50);
}

/**
 * `load` runs while the test's session `holder` holds the journal head (every batch's write waits for
 * it); then the server is killed and its connections with it (their backends terminated: a batch
 * waiting for the head ends without its COMMIT), and the head is let go.
 */
async function killWithHeadHeld(server: Server, holder: Client, load: () => Promise<void>): Promise<void> {
  await holder.query(`BEGIN`);
  await holder.query(`SELECT journal_seq FROM journal_head WHERE id = 1 FOR UPDATE`);
  await load();
  await server.kill();
  await holder.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND query LIKE '%journal_pending%'`,
  );
  await untilNone(holder, `state <> 'idle' AND query LIKE '%DELETE FROM journal_pending%'`);
  await holder.query(`ROLLBACK`);
}

whenPostgres('Ledger crash safety: SIGKILL in the middle of a stream of accepts', () => {
  let env: Environment;
  let server: Server;
  let db: Client;
  const traders: RfqTrader[] = [];

  beforeAll(async () => {
    buildAppUnlessPrebuilt();
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', SWEEP_INTERVAL_MS: '500' });
    server = new Server(env.env, await freePort());
    await server.start();
    db = new Client({ connectionString: env.env.DATABASE_URL });
    await db.connect();
  }, 300_000);

  afterAll(async () => {
    for (const t of traders) await t.client.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await server?.kill();
    await env?.destroy();
  });

  it('every accepted RFQ ends filled or failed, none filled twice, the invariants hold', async () => {
    const app = server.app;
    const round = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    const makers = await Promise.all([rfqTrader(app, ['quoter']), rfqTrader(app, ['quoter'])]);
    const takers = await Promise.all(Array.from({ length: TAKERS }, () => rfqTrader(app, ['taker'])));
    traders.push(...makers, ...takers);
    for (const m of makers) await deposit(app, m.accountId, '100000');
    for (const t of takers) await deposit(app, t.accountId, '5000');

    const book = await quoteBook(round, makers, takers);

    // The stream: every accept sent at once over the takers' connections; the server dies half-way.
    const answered = new Set<string>();
    const replies = book.map(({ taker, q, side }) =>
      taker.client.call('rfq.accept', acceptParams(taker.wallet, q, side)).then((reply) => {
        if (reply.result) answered.add(q.rfqId);
      }),
    );
    const until = Date.now() + 20_000;
    while (answered.size < book.length / 2 && Date.now() < until) await sleep(2);
    await server.kill();
    await Promise.race([Promise.all(replies), sleep(500)]);
    const [{ n: accepted }] = (await db.query(`SELECT count(*)::int AS n FROM accepts`)).rows;
    const [{ n: pendingAtKill }] = (await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE state IN ('accepted', 'submitting')`)).rows;
    expect(accepted).toBeGreaterThanOrEqual(answered.size);

    await server.start();
    expect(await pendingAfterRecovery(db)).toBe(0);

    // Every accept (answered or not) ended filled or failed; one fill at most per RFQ.
    const states = (await db.query(`SELECT r.state, count(*)::int AS n FROM accepts a JOIN rfqs r ON r.id = a.rfq_id GROUP BY r.state`)).rows;
    expect(states.every((s: any) => s.state === 'filled' || s.state === 'failed')).toBe(true);
    for (const id of answered) {
      const [row] = (await db.query(`SELECT state FROM rfqs WHERE id = $1`, [id])).rows;
      expect(['filled', 'failed']).toContain(row.state);
    }
    expect((await db.query(`SELECT rfq_id FROM fills GROUP BY rfq_id HAVING count(*) > 1`)).rows).toEqual([]);
    const [{ n: fills }] = (await db.query(`SELECT count(*)::int AS n FROM fills`)).rows;
    const [{ n: filled }] = (await db.query(`SELECT count(*)::int AS n FROM rfqs WHERE state = 'filled'`)).rows;
    expect(fills).toBe(filled);
    expect(await violations(pgRows(db))).toEqual([]);
    // The journal: one unbroken chain, exactly one receipt per fill (none lost with the fills killed between COMMIT and chaining).
    expect(await journalViolations(db)).toEqual([]);
    process.stdout.write(
      `crash: ${book.length} accepts sent, ${answered.size} answered before the kill, ${accepted} committed, ${pendingAtKill} accepted/submitting at the kill; ${JSON.stringify(states)}\n`,
    );
  }, 400_000);
  /**
   * docs/receipts.md, crash cases: a test session holds the journal head, so fills and a revert
   * commit with their receipts staged and their `filled` events waiting; the server dies there.
   * Started again with one staged row locked by the test, its appender's batch statement writes
   * its receipts and then waits to delete that row: the server dies in the middle of the batch,
   * which then ends whole or not at all (never a receipt without its staged row gone). The
   * third start chains everything: one unbroken chain, exactly one receipt per fill and revert.
   */
  it("kills between fills' commits and their receipts, then in the middle of a batch: one unbroken chain, one receipt per fill and revert", async () => {
    const round = await listRound(server.app, 'SOL', expirationIn(11));
    await marketData(server.app, 'SOL', '150', '0.8');
    const [maker, taker] = await Promise.all([rfqTrader(server.app, ['quoter']), rfqTrader(server.app, ['taker'])]);
    traders.push(maker, taker);
    await deposit(server.app, maker.accountId, '100000');
    await deposit(server.app, taker.accountId, '5000');
    const q = async () => quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')], { expires_at: Math.floor(Date.now() / 1000) + 300 });
    const reverted = await q();
    expect((await acceptAndFill(taker, reverted, 'buy')).state).toBe('filled');
    const book: Quoted[] = [];
    for (let i = 0; i < 6; i++) book.push(await q());
    const count = async (sql: string) => (await db.query(sql)).rows[0].n as number;
    const receiptsBefore = await count(`SELECT count(*)::int AS n FROM receipts`);
    const holder = new Client({ connectionString: env.env.DATABASE_URL });
    await holder.connect();
    try {
      // 1. The head held by the test: the accepts fill and the revert commits; nothing is chained.
      await killWithHeadHeld(server, holder, async () => {
        for (const item of book) void taker.client.call('rfq.accept', acceptParams(taker.wallet, item, 'sell')).catch(() => undefined);
        void new Http(server.app.url)
          .admin()
          .post(`/v1/admin/rfq/${reverted.rfqId}/revert`, {})
          .catch(() => undefined);
        const until = Date.now() + 30_000;
        while ((await count(`SELECT count(*)::int AS n FROM journal_pending`)) < book.length + 1 && Date.now() < until) await sleep(50);
      });
      expect(await count(`SELECT count(*)::int AS n FROM journal_pending`)).toBe(book.length + 1);
      expect(await count(`SELECT count(*)::int AS n FROM receipts`)).toBe(receiptsBefore);

      // 2. One staged row locked by the test: the restarted appender's batch stops at its DELETE; the server dies there.
      await holder.query(`BEGIN`);
      await holder.query(`SELECT id FROM journal_pending ORDER BY id DESC LIMIT 1 FOR UPDATE`);
      await server.start();
      expect(await untilSome(db, `wait_event_type = 'Lock' AND query LIKE '%DELETE FROM journal_pending%'`)).toBe(1);
      await server.kill();
      await holder.query(`ROLLBACK`);
    } finally {
      await holder.end();
    }
    // Its batch is one statement: its backend, left alone, ends it whole (its Sync had come) or not at all.
    await untilNone(db, `state <> 'idle' AND query LIKE '%DELETE FROM journal_pending%'`);
    const staged = await count(`SELECT count(*)::int AS n FROM journal_pending`);
    const chained = await count(`SELECT count(*)::int AS n FROM receipts`);
    expect([
      [book.length + 1, receiptsBefore],
      [0, receiptsBefore + book.length + 1],
    ]).toContainEqual([staged, chained]);
    expect(await journalViolations(db, { staged })).toEqual([]);

    // 3. Started again: its sweep chains what was staged.
    await server.start();
    const done = Date.now() + 60_000;
    while ((await count(`SELECT count(*)::int AS n FROM journal_pending`)) > 0 && Date.now() < done) await sleep(100);
    expect(await count(`SELECT count(*)::int AS n FROM receipts`)).toBe(receiptsBefore + book.length + 1);
    expect(await journalViolations(db)).toEqual([]);
    expect(await violations(pgRows(db))).toEqual([]);
  }, 300_000);
});
