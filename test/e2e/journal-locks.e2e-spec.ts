/**
 * The fill's last statement (JournalRepository.stage with a fee credit) waits for the fee account's
 * balance row, as every other writer of that row takes it (a revert locks it before it stages),
 * credits the fee once, and never takes the journal head: while the fill's transaction is still
 * open after it, another session locks the head at once (docs/receipts.md: no fill holds the head
 * across its COMMIT; the appender takes it for its batch's own transaction). Two real sessions on
 * PostgreSQL (PGlite has one session).
 */
import { Database } from '../../src/common/database/database';
import type { Sql, Tx } from '../../src/common/database/sql';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { MetricsService } from '../../src/modules/health/metrics.service';
import { JournalRepository } from '../../src/modules/journal/journal.repository';
import { Environment, type TestApp } from './harness';
import { expirationIn, leg, listRound } from './rfq-support';
import { acceptAndFill, marketData, pair, quoted } from './support/ledger';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(process.env.DATABASE_URL ? describe : describe.skip)('journal head and fee account: a fill stages its receipt without the head', () => {
  let env: Environment;
  let app: TestApp;
  let db: Database;

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600' });
    app = await env.start();
    db = app.app.get(Database);
  });
  afterAll(async () => {
    await app?.close();
    await env?.destroy();
  });

  /** Waits until a backend runs a statement containing `marker` and waits for a lock. */
  async function blockedOn(marker: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const rows = await db.rows<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'`,
        [marker],
      );
      if (Number(rows[0].n) > 0) return;
      await sleep(25);
    }
    throw new Error(`no backend waits on a lock in a statement with ${marker}`);
  }

  it("waits for the fee account's row, credits the fee once, and leaves the head free up to its COMMIT", async () => {
    // A real fill, whose revert receipt the test stages (and rolls back).
    const round = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    const { taker, maker } = await pair(app, '1000', '10000');
    const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')], { bid: '1.5', ask: '2.25' });
    const filled = await acceptAndFill(taker, q, 'buy');
    await taker.client.close();
    await maker.client.close();
    const fillId = String(filled.fill.fill_id);

    const feeAccount = app.app.get(AccountsService).feeAccountId();
    const journal = app.app.get(JournalRepository);
    const total = async (sql: Sql) => BigInt((await sql.one<{ total: string }>(`SELECT total FROM balances WHERE account_id = $1`, [feeAccount]))!.total);
    const before = await total(db);

    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // Session A holds the fee account's row, as a revert does before it stages.
    const holder = db.tx(async (sql: Sql) => {
      await sql.rows(`SELECT total FROM balances WHERE account_id = $1 FOR UPDATE`, [feeAccount]);
      await released;
    });
    await sleep(50);
    // Session B: a fill's last statement, then (its transaction still open) session C takes the head.
    let headFreeBeforeCommit: boolean | null = null;
    let creditedInside: bigint | null = null;
    const fill = db.tx(async (tx: Tx) => {
      await journal.stage(tx, { kind: 1, fillId, body: Buffer.alloc(1072), at: 1 }, { accountId: feeAccount, amount: 1234n });
      creditedInside = (await total(tx)) - before;
      headFreeBeforeCommit = await db
        .tx((other) => other.rows(`SELECT journal_seq FROM journal_head WHERE id = 1 FOR UPDATE NOWAIT`))
        .then(
          () => true,
          () => false,
        );
      throw new Error('rolled back on purpose');
    });
    await blockedOn('INSERT INTO journal_pending');
    release();
    await holder;
    await expect(fill).rejects.toThrow('rolled back on purpose');

    expect(creditedInside).toBe(1234n);
    expect(headFreeBeforeCommit).toBe(true);
    expect(await total(db)).toBe(before);
    expect(await db.rows(`SELECT id FROM journal_pending`)).toEqual([]);
  });

  /** The head's hold histogram's sum and count (MetricsService.journalHead). */
  async function holdSoFar(): Promise<{ sum: number; count: number }> {
    const metric = app.app.get(MetricsService).registry.getSingleMetric('legwork_journal_head_hold_seconds')!;
    const values = (await metric.get()).values;
    const of = (name: string) => values.find((v) => (v as { metricName?: string }).metricName === name)?.value ?? 0;
    return { sum: of('legwork_journal_head_hold_seconds_sum'), count: of('legwork_journal_head_hold_seconds_count') };
  }

  /**
   * docs/receipts.md, "The head's hold": a batch's hold ends where the head's row is released, at
   * its write's commit (the backend going idle), not when this process gets to the reply. A deferred
   * trigger makes the commit take 300 ms with the row locked; while it sleeps, this process blocks
   * its own event loop for 1.2 s, so the reply is read about a second after the commit ended.
   */
  it("measures the head's hold to the write's commit, on the database's clock, not to this process's reading of the reply", async () => {
    const round = await listRound(app, 'HOLD', expirationIn(10));
    await marketData(app, 'HOLD', '150', '0.8');
    const { taker, maker } = await pair(app, '1000', '10000');
    await db.exec(`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$`);
    await db.exec(
      `CREATE CONSTRAINT TRIGGER slow_commit AFTER UPDATE ON journal_head DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()`,
    );
    try {
      const before = await holdSoFar();
      // The batch's write is sent; 100 ms later, its commit still sleeping, the event loop is blocked 1.2 s.
      const journal = app.app.get(JournalRepository);
      const write = journal.appendBatch.bind(journal);
      const spy = jest.spyOn(journal, 'appendBatch').mockImplementationOnce((...args) => {
        const written = write(...args);
        setTimeout(() => {
          const until = Date.now() + 1200;
          while (Date.now() < until); // the write's reply waits here
        }, 100);
        return written;
      });
      const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')], { bid: '1.5', ask: '2.25' });
      const filled = acceptAndFill(taker, q, 'buy');
      expect((await filled).state).toBe('filled');
      let after = await holdSoFar();
      for (let i = 0; i < 100 && after.count === before.count; i++) after = await holdSoFar().then(async (h) => (await sleep(20), h));
      expect(after.count - before.count).toBe(1);
      const held = after.sum - before.sum;
      expect(held).toBeGreaterThanOrEqual(0.3);
      expect(held).toBeLessThan(0.9);
      expect(spy).toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
      await db.exec(`DROP TRIGGER slow_commit ON journal_head`);
      await db.exec(`DROP FUNCTION slow_commit()`);
      await taker.client.close();
      await maker.client.close();
    }
  });
});
