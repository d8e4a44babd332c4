import { Clock } from '../../common/clock';
import type { AppConfig } from '../../common/config/config';
import type { MetricsService } from '../health/metrics.service';
import { REST_PER_STATEMENT } from './domain/history';
import { RfqHistoryService } from './rfq-history.service';
import type { RfqHistoryRepository } from './rfq-history.repository';
import { settle, useFakeTime } from '../../../test/fake-time';

/** A repository whose every statement takes `statementMs`, with `dueRows` RFQs due on each read. */
function service(statementMs: number, dueRows: () => number) {
  const calls: string[] = [];
  const slow =
    <T>(name: string, value: T) =>
    async (): Promise<T> => {
      calls.push(name);
      await new Promise((resolve) => setTimeout(resolve, statementMs));
      return value;
    };
  const history = {
    due: jest.fn(async () => {
      const rows = await slow('due', dueRows())();
      return Array.from({ length: rows }, (_, i) => ({ id: `rfq-${i}`, kept: false }));
    }),
    deleteEvents: jest.fn(slow('deleteEvents', 0)),
    deleteUnfilled: jest.fn(slow('deleteUnfilled', 1)),
    markEventsPruned: jest.fn(slow('markEventsPruned', 0)),
  };
  const metrics = { growthSource: jest.fn() } as unknown as MetricsService;
  const config = { sweepIntervalMs: 60_000, rfqHistoryDays: 30, databaseUrl: 'postgres://test' } as AppConfig;
  return { sweep: new RfqHistoryService(history as unknown as RfqHistoryRepository, new Clock(), metrics, config), calls };
}

// Fake timers and clock: a statement takes exactly its time, and the rests follow from it.
useFakeTime();

describe('RfqHistoryService rests', () => {
  it('rests REST_PER_STATEMENT times a statement between the statements of a pass, and not after its last', async () => {
    let due = 1;
    const { sweep, calls } = service(10, () => due--);
    const ms = await settle(sweep.prune());
    // due, deleteEvents, deleteUnfilled, due (empty): four statements of 10 ms and three rests between them.
    expect(calls).toEqual(['due', 'deleteEvents', 'deleteUnfilled', 'due']);
    expect(ms).toBe(4 * 10 + 3 * 10 * REST_PER_STATEMENT);
  });

  it('does not rest when nothing is due', async () => {
    const { sweep } = service(100, () => 0);
    expect(await settle(sweep.prune())).toBe(100);
  });

  it('a shutdown cuts the rest after a slow statement short (a rest of 20 s under a loaded database held one up)', async () => {
    const { sweep, calls } = service(1000, () => 5);
    sweep.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1100); // the first statement is done; its rest is 20 s
    // The rest ends at once; the one statement that follows it runs (1 s), and the pass ends there.
    expect(await settle(sweep.beforeApplicationShutdown())).toBe(1000);
    expect(calls).toEqual(['due', 'deleteEvents']);
  });
});
