import { Clock } from '../../common/clock';
import type { AppConfig } from '../../common/config/config';
import type { Database } from '../../common/database/database';
import type { MetricsService } from '../health/metrics.service';
import type { ReceiptView } from './domain/receipt';
import { GATHER } from './domain/gather';
import { JournalAppender } from './journal-appender.service';
import type { ExchangeKeyService } from './exchange-key.service';
import type { JournalRepository } from './journal.repository';
import { settle, useFakeTime } from '../../../test/fake-time';

/**
 * The appender's batching with its batch replaced: `staged` is what fills have committed; a batch
 * chains all of it (after BATCH_MS, its write) and is recorded in `batches`.
 */
function appender(batchMs = 2) {
  const staged: string[] = [];
  const batches: string[][] = [];
  const db = { session: async <T>(fn: (s: unknown) => Promise<T>) => fn({}), embedded: false } as unknown as Database;
  const config = { sweepIntervalMs: 60_000 } as AppConfig;
  const metrics = { journalHead: jest.fn() } as unknown as MetricsService;
  const a = new JournalAppender(db, {} as JournalRepository, {} as ExchangeKeyService, metrics, new Clock(), config);
  const view = (n: number) => ({ journal_seq: n }) as ReceiptView;
  jest.spyOn(a as unknown as { chainBatch: () => Promise<unknown> }, 'chainBatch').mockImplementation(async () => {
    const batch = staged.splice(0);
    await new Promise((resolve) => setTimeout(resolve, batchMs));
    if (batch.length > 0) batches.push(batch);
    return { linked: batch.map((fillId, i) => ({ fillId, kind: 0, view: view(i) })), hold: null };
  });
  const fill = (id: string) => {
    staged.push(id);
    return a.receiptOf(id, 0);
  };
  return { a, fill, batches };
}

// Fake timers and clock: what gathers and what does not is decided by time, so the test owns it.
useFakeTime();

describe('JournalAppender batching', () => {
  it('chains at once when idle: the ask takes only the batch time', async () => {
    const { fill, batches } = appender();
    expect(await settle(fill('1'))).toBe(2);
    await jest.advanceTimersByTimeAsync(150); // no run for longer than BUSY_MS
    expect(await settle(fill('2'))).toBe(2);
    expect(batches).toEqual([['1'], ['2']]);
  });

  it('under load, gathers until enough fills asked to share one commit (two, before any hold is observed)', async () => {
    const { fill, batches } = appender();
    await settle(fill('1'));
    // A run ended just now: the next one gathers, and the second ask ends the gather at once.
    const first = fill('2');
    await jest.advanceTimersByTimeAsync(3);
    const second = fill('3');
    expect(await settle(Promise.all([first, second]))).toBe(2);
    expect(batches).toEqual([['1'], ['2', '3']]);
  });

  it('under load, a lone ask waits for others at most GATHER.MAX_MS', async () => {
    const { fill, batches } = appender();
    await settle(fill('1'));
    expect(await settle(fill('2'))).toBe(GATHER.MAX_MS + 2);
    expect(batches).toEqual([['1'], ['2']]);
  });

  it('asks made while a batch writes wait for the next batch, which does not gather once they are enough', async () => {
    const { fill, batches } = appender(20);
    const first = fill('1');
    await jest.advanceTimersByTimeAsync(5); // the first batch has read: it is writing
    const second = fill('2');
    await jest.advanceTimersByTimeAsync(2);
    const third = fill('3');
    // The first batch ends at 20 ms; the next starts with two asks and reads at once: 40 ms, not 40 + a gather.
    expect(7 + (await settle(Promise.all([first, second, third])))).toBe(40);
    expect(batches).toEqual([['1'], ['2', '3']]);
  });

  it('does not gather once stopping (a shutdown chains what is staged at once)', async () => {
    const { a, fill, batches } = appender();
    await settle(fill('1'));
    await a.beforeApplicationShutdown();
    expect(await settle(fill('2'))).toBe(2);
    expect(batches).toEqual([['1'], ['2']]);
  });
});
