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
});
