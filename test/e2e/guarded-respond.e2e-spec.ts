import type { Database } from '../../src/common/database/database';
import type { MakerLimitsRow } from '../../src/modules/maker-limits/maker-limits-row';
import { RfqRepository } from '../../src/modules/rfq/rfq.repository';
import { describeBothDatabases } from './support/both-databases';
import { NOW, account, count, newRfq, quoteOf } from './support/repository-rows';

/**
 * A respond under a maker's limits decided on the quotes an instance knows (docs/maker-limits.md):
 * its one statement moves the RFQ and raises the nonce only while the maker's limits row is the
 * one its checks read and the nonce high-water mark the one its quotes were known at; otherwise it
 * changes nothing. On PostgreSQL, with two connections: it waits for a change of the row in
 * flight and decides on the row as committed.
 */
const ROW: MakerLimitsRow = { limits: { max_open_quotes: 3 }, adminLimits: {}, trippedAt: null, frozenUntil: null, tripReason: null };
const moveOf = (rfqId: string) => ({ rfqId, from: 'pending' as const, to: 'quoted' as const, at: NOW + 1 });

describeBothDatabases('guarded respond (moveToQuotedIfUnchanged)', (getDb, kind) => {
  const rfqs = () => new RfqRepository(getDb());
  /** A taker with a pending RFQ each call, and a maker with ROW as its limits row. */
  const parties = async (db: Database) => {
    const [taker, maker] = [await account(db), await account(db)];
    await db.exec(`INSERT INTO maker_limits (account_id, limits, admin_limits, updated_at) VALUES ($1, $2::jsonb, '{}'::jsonb, $3)`, [
      maker,
      JSON.stringify(ROW.limits),
      NOW,
    ]);
    return { taker, maker, pending: async () => (await rfqs().insertPending(newRfq(taker), 100))!.id };
  };

  it('moves only while the limits row and the mark are those it was checked on; otherwise nothing changes', async () => {
    const db = getDb();
    const { taker, maker, pending } = await parties(db);
    // Never quoted: it moves while the maker still has no mark.
    const first = await pending();
    expect(await rfqs().moveToQuotedIfUnchanged(db, moveOf(first), quoteOf(maker, 5n), { highWater: null, limits: ROW })).toMatchObject({ state: 'quoted' });
    const second = await pending();
    const stale = [
      { highWater: null, limits: ROW },
      { highWater: 4n, limits: ROW },
      { highWater: 5n, limits: { ...ROW, trippedAt: NOW } },
      { highWater: 5n, limits: { ...ROW, limits: { max_open_quotes: 4 } } },
    ];
    for (const known of stale) expect(await rfqs().moveToQuotedIfUnchanged(db, moveOf(second), quoteOf(maker, 9n), known)).toBeNull();
    expect((await rfqs().findById(second))!.state).toBe('pending');
    expect(await rfqs().nonceHighWater(maker)).toBe(5n);
    expect(await count(db, `SELECT count(*) AS n FROM rfq_events WHERE rfq_id = $1`, [second])).toBe(1);
    expect(await count(db, `SELECT count(*) AS n FROM account_events WHERE account_id = $1`, [taker])).toBe(1);

    expect(await rfqs().moveToQuotedIfUnchanged(db, moveOf(second), quoteOf(maker, 9n), { highWater: 5n, limits: ROW })).toMatchObject({
      state: 'quoted',
      quote: { quoteNonce: 9n },
    });
    expect(await rfqs().nonceHighWater(maker)).toBe(9n);
  });

  (kind === 'postgres' ? it : it.skip)('waits for a change of the limits row in flight, and moves only if the row it commits is unchanged', async () => {
    const db = getDb();
    for (const [change, moves] of [
      [`UPDATE maker_limits SET tripped_at = ${NOW} WHERE account_id = $1`, false],
      [`SELECT 1 FROM maker_limits WHERE account_id = $1 FOR UPDATE`, true],
    ] as const) {
      const { maker, pending } = await parties(db);
      await rfqs().moveToQuoted(db, moveOf(await pending()), quoteOf(maker, 5n));
      const rfqId = await pending();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const writer = db.tx(async (tx) => {
        await tx.exec(change, [maker]);
        locked();
        await held;
      });
      await isLocked;
      let settled = false;
      const guarded = rfqs()
        .moveToQuotedIfUnchanged(db, moveOf(rfqId), quoteOf(maker, 6n), { highWater: 5n, limits: ROW })
        .finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Still waiting on the row the writer holds.
      expect(settled).toBe(false);
      release();
      await writer;
      expect((await guarded)?.state ?? null).toBe(moves ? 'quoted' : null);
      expect(await rfqs().nonceHighWater(maker)).toBe(moves ? 6n : 5n);
    }
  });
});
