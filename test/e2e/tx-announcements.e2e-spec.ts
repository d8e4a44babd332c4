import type { Notification, Notifier } from '../../src/common/broadcast/notifier';
import { Clock } from '../../src/common/clock';
import type { Database } from '../../src/common/database/database';
import type { JobRunner } from '../../src/common/jobs/job-runner';
import { MetricsService } from '../../src/modules/health/metrics.service';
import { RfqRepository } from '../../src/modules/rfq/rfq.repository';
import { RfqTransitionsService } from '../../src/modules/rfq/rfq-transitions.service';
import { describeBothDatabases } from './support/both-databases';
import { NOW, account, newRfq, quoteOf } from './support/repository-rows';

/**
 * A move made inside a caller's transaction (`RfqTransitionsService.moveWithin`) is announced by
 * `Tx.afterCommit`: once its transaction commits, never when it rolls back, with no announcement
 * left for the caller to remember or to send early.
 */
async function pendingRfq(db: Database): Promise<{ taker: number; rfqId: string }> {
  const taker = await account(db);
  const rfq = await new RfqRepository(db).insertPending(newRfq(taker), 5);
  return { taker, rfqId: rfq!.id };
}

/** RfqTransitionsService over the real repository, with a notifier that records each broadcast. */
function transitionsOf(db: Database): { transitions: RfqTransitionsService; broadcasts: Notification[][] } {
  const broadcasts: Notification[][] = [];
  const notifier = { notifyAll: async (n: Notification[]) => void broadcasts.push([...n]) } as unknown as Notifier;
  const metrics = new MetricsService({ depths: async () => ({}) } as unknown as JobRunner);
  return { transitions: new RfqTransitionsService(db, new RfqRepository(db), new Clock(), notifier, metrics), broadcasts };
}

describeBothDatabases('moves in a transaction are announced after its commit', (getDb) => {
  it('a move whose transaction rolls back is never announced; the same move committed is announced once, after the COMMIT', async () => {
    const db = getDb();
    const { taker, rfqId } = await pendingRfq(db);
    const { transitions, broadcasts } = transitionsOf(db);
    const move = { rfqId, from: 'pending', to: 'expired', at: NOW + 1 } as const;

    await expect(
      db.tx(async (tx) => {
        expect((await transitions.moveWithin(tx, move))?.state).toBe('expired');
        throw new Error('a later step of the transaction fails');
      }),
    ).rejects.toThrow('a later step of the transaction fails');
    expect(broadcasts).toEqual([]);
    expect((await new RfqRepository(db).findById(rfqId))?.state).toBe('pending');

    const moved = await db.tx(async (tx) => {
      const record = await transitions.moveWithin(tx, move);
      // Not before the COMMIT: a subscriber must not hear of a move it cannot read yet.
      expect(broadcasts).toEqual([]);
      return record;
    });
    expect(moved?.state).toBe('expired');
    expect(broadcasts).toHaveLength(1);
    expect(broadcasts[0].map((n) => [n.channel, n.accountId])).toEqual([
      ['rfq', taker],
      ['rfq_maker', undefined],
    ]);
    expect(broadcasts[0][0].data).toMatchObject({ event: 'expired', rfq: { rfq_id: rfqId, state: 'expired' } });
  });

  it('a quote rolled back is not announced, and leaves the nonce high-water mark where it was', async () => {
    const db = getDb();
    const { rfqId } = await pendingRfq(db);
    const maker = await account(db);
    const { transitions, broadcasts } = transitionsOf(db);
    const quote = quoteOf(maker, 7n);
    await expect(
      db.tx(async (tx) => {
        await transitions.moveToQuotedWithin(tx, { rfqId, from: 'pending', to: 'quoted', at: NOW + 1 }, quote);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(broadcasts).toEqual([]);
    expect(await new RfqRepository(db).nonceHighWater(maker)).toBeNull();
  });

  it('db.tx returns once its after-commit announcements are out; a failed one is logged and the commit stands', async () => {
    const db = getDb();
    const { rfqId } = await pendingRfq(db);
    const order: string[] = [];
    await db.tx(async (tx) => {
      await tx.exec(`UPDATE rfqs SET updated_at = updated_at WHERE id = $1`, [rfqId]);
      tx.afterCommit(async () => {
        order.push('announcement started');
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('announcement out');
      });
      tx.afterCommit(() => Promise.reject(new Error('the bus is down')));
    });
    order.push('db.tx returned');
    expect(order).toEqual(['announcement started', 'announcement out', 'db.tx returned']);
  });
});
