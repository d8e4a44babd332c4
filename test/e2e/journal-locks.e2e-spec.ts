/**
 * The fill's last statement (JournalRepository.lockHead with a fee credit) takes its two locks in
 * the order every other writer of those rows takes them: the fee account's balance row, then the
 * journal head (revert.service.ts locks the fee account's row, then appends). In the other order a
 * fill and a revert could deadlock. Two real sessions on PostgreSQL (PGlite has one session).
 */
import { Database } from '../../src/common/database/database';
import type { Sql, Tx } from '../../src/common/database/sql';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { JournalRepository } from '../../src/modules/journal/journal.repository';
import { Environment, type TestApp } from './harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(process.env.DATABASE_URL ? describe : describe.skip)('journal head and fee account: one lock order', () => {
  let env: Environment;
  let app: TestApp;
  let db: Database;

  beforeAll(async () => {
    env = await Environment.create();
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

  it("waits for the fee account's row before it locks the head, and credits the fee once", async () => {
    const feeAccount = app.app.get(AccountsService).feeAccountId();
    const journal = app.app.get(JournalRepository);
    await db.exec(`INSERT INTO balances (account_id, total) VALUES ($1, 0) ON CONFLICT (account_id) DO NOTHING`, [feeAccount]);
    const before = await db.one<{ total: string }>(`SELECT total FROM balances WHERE account_id = $1`, [feeAccount]);

    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let headFreeWhileBlocked: boolean | null = null;
    // Session A holds the fee account's row, as a revert does before it appends.
    const holder = db.tx(async (sql: Sql) => {
      await sql.rows(`SELECT total FROM balances WHERE account_id = $1 FOR UPDATE`, [feeAccount]);
      await released;
      // B waits on the fee row: the head must still be free (NOWAIT fails at once when B holds it).
      headFreeWhileBlocked = await sql.rows(`SELECT journal_seq FROM journal_head WHERE id = 1 FOR UPDATE NOWAIT`).then(
        () => true,
        () => false,
      );
    });
    await sleep(50);
    // Session B: a fill's last statement.
    const fill = db.tx((tx: Tx) => journal.lockHead(tx, feeAccount, { accountId: feeAccount, amount: 1234n }));
    await blockedOn('journal_head h, fee');
    release();
    await holder.catch(() => undefined);
    const head = await fill;

    expect(headFreeWhileBlocked).toBe(true);
    expect(head.journalSeq).toBeGreaterThanOrEqual(0n);
    const after = await db.one<{ total: string }>(`SELECT total FROM balances WHERE account_id = $1`, [feeAccount]);
    expect(BigInt(after!.total) - BigInt(before!.total)).toBe(1234n);
  });
});
