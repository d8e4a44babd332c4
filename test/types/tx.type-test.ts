/**
 * Type test of `Tx` (src/common/database/sql.ts), checked by `npm run typecheck` and never run:
 * a repository method that must run inside a transaction takes a required `tx: Tx`, which only
 * `db.tx(...)` hands out. Each `@ts-expect-error` line below is a call that must not compile; if
 * one ever compiles (a `Tx` parameter loosened to `Sql`, or given a default), tsc fails with
 * "Unused '@ts-expect-error' directive". Each is paired with the same call made right, which
 * must compile, so a line fails for the reason it names and not for another.
 */
import type { Database } from '../../src/common/database/database';
import type { Sql, Tx } from '../../src/common/database/sql';
import type { InstrumentRepository } from '../../src/modules/instruments/instrument.repository';
import type { BalanceRepository } from '../../src/modules/ledger/balance.repository';
import type { FillRepository } from '../../src/modules/ledger/fill.repository';
import type { MakerLimitsRepository } from '../../src/modules/maker-limits/maker-limits.repository';
import type { RfqRepository } from '../../src/modules/rfq/rfq.repository';
import type { RfqTransitionsService } from '../../src/modules/rfq/rfq-transitions.service';

export interface Repositories {
  balances: BalanceRepository;
  fills: FillRepository;
  instruments: InstrumentRepository;
  makerLimits: MakerLimitsRepository;
  rfqs: RfqRepository;
  transitions: RfqTransitionsService;
}

const move = { rfqId: 'r', from: 'submitting', to: 'failed' } as const;
const rows = [{ accountId: 1, row: { total: 0n, locked: 0n } }];

/** (a) The pool, a held session or any plain `Sql` is not a `Tx`. */
export async function poolIsNotTx(db: Database, session: Sql, r: Repositories): Promise<void> {
  await db.tx(async (tx) => {
    await r.balances.setMany(tx, rows);
    await r.rfqs.lockState(tx, 'r');
    await r.fills.markReverted(tx, 'f', 0);
    await r.balances.rowsOf(tx, [1], true);
    await r.transitions.moveWithin(tx, move);
  });
  // @ts-expect-error a write of the fill's transaction on the pool runs outside it
  await r.balances.setMany(db, rows);
  // @ts-expect-error a row lock on the pool is released at once (PGlite: waits for its one session)
  await r.rfqs.lockState(db, 'r');
  // @ts-expect-error a held session is not a transaction either
  await r.fills.markReverted(session, 'f', 0);
  // @ts-expect-error FOR UPDATE outside a transaction locks nothing
  await r.balances.rowsOf(db, [1], true);
  // The same read without the lock runs anywhere.
  await r.balances.rowsOf(db, [1]);
  // @ts-expect-error a move in a caller's transaction needs that transaction (it announces after its commit)
  await r.transitions.moveWithin(db, move);
  await db.tx((tx) => r.makerLimits.quotesVersion(1, { sql: tx, lock: true }));
  // @ts-expect-error the maker's high-water row locked on the pool would be released at once
  await r.makerLimits.quotesVersion(1, { sql: db, lock: true });
  // The version read without the lock runs anywhere.
  await r.makerLimits.quotesVersion(1, { sql: db, lock: false });
  // @ts-expect-error an object shaped like Sql is not a Tx: only db.tx makes one
  await r.balances.ensureRow({ ...session }, 1);
}

/** (b) A transactional write has no default executor: leaving the tx out does not compile. */
export async function txIsRequired(db: Database, r: Repositories): Promise<void> {
  await db.tx(async (tx) => {
    await r.instruments.setPaused({ expiry: 1, asset: null }, true, tx);
    await r.instruments.lockRound(1, tx);
    await r.instruments.markSettled('A', 1, 1n, tx);
    // @ts-expect-error without its tx the pause would run on the pool, outside the round's lock
    await r.instruments.setPaused({ expiry: 1, asset: null }, true);
    // @ts-expect-error without its tx the round lock would be taken and released by itself
    await r.instruments.lockRound(1);
    // @ts-expect-error without its tx the settlement mark would commit alone
    await r.instruments.markSettled('A', 1, 1n);
  });
}

/** `Tx.afterCommit` takes an async announcement; the transaction awaits it after its COMMIT. */
export async function afterCommitTakesAnnouncements(db: Database, announce: () => Promise<void>): Promise<void> {
  await db.tx(async (tx: Tx) => {
    tx.afterCommit(announce);
    tx.afterCommit(() => undefined);
    await tx.rows('SELECT 1');
  });
}
