import { CompetitionHooks } from './competition-port';
import { LimitsHooks } from '../maker-limits/limits-hooks';
import { Clock } from '../../common/clock';
import type { AppConfig } from '../../common/config/config';
import type { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import type { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES, jobIds } from '../../common/jobs/queues';
import { RfqExpiryService } from './rfq-expiry.service';
import type { RfqTransitionsService } from './rfq-transitions.service';
import type { RfqRepository } from './rfq.repository';

const DEADLINE = 1_795_000_010;
const DEADLINE_MS = DEADLINE * 1000;

/**
 * A clock whose next reading, once armed, is `aheadMs` ahead of the timers' time: a wait computed
 * from it ends before the clock reaches its time (as a timer on the event loop's cached time can).
 */
class JitteryClock extends Clock {
  armed = false;
  constructor(private readonly aheadMs: number) {
    super();
  }
  override nowMs(): number {
    const ahead = this.armed ? this.aheadMs : 0;
    this.armed = false;
    return Date.now() + ahead;
  }
  override now(): number {
    return Math.floor(this.nowMs() / 1000);
  }
}

function setup(clock: Clock = new Clock()) {
  const events: string[] = [];
  const held = { held: true } as unknown as Sql;
  const jobs = { process: jest.fn(), enqueue: jest.fn().mockResolvedValue(undefined) };
  const transitions = {
    expireDue: jest.fn(async (now: number, _limit: number, sql?: Sql) => {
      events.push(`expire now=${now} at=${clock.nowMs() - DEADLINE_MS} on=${sql === held ? 'held' : 'pool'}`);
      return [];
    }),
  };
  const db = {
    session: jest.fn(async <T>(fn: (sql: Sql) => Promise<T>): Promise<T> => {
      events.push(`connection at=${clock.nowMs() - DEADLINE_MS}`);
      if (clock instanceof JitteryClock) clock.armed = true;
      return fn(held);
    }),
  };
  const expiry = new RfqExpiryService(
    jobs as unknown as JobRunner,
    {} as RfqRepository,
    transitions as unknown as RfqTransitionsService,
    clock,
    db as unknown as Database,
    new CompetitionHooks(new LimitsHooks()),
    { sweepIntervalMs: 2000 } as AppConfig,
  );
  return { expiry, jobs, transitions, db, events };
}

describe('RfqExpiryService: a deadline second', () => {
  beforeEach(() => jest.useFakeTimers({ now: DEADLINE_MS - 3000 }));
  afterEach(() => jest.useRealTimers());

  it('enqueues its job 500 ms before the deadline, once per second', async () => {
    const { expiry, jobs } = setup();
    await expiry.schedule(DEADLINE);
    await expiry.schedule(DEADLINE);
    expect(jobs.enqueue.mock.calls).toEqual([[QUEUES.rfqExpiry, { deadline: DEADLINE }, { delayMs: 2500, jobId: jobIds.rfqExpiry(DEADLINE) }]]);
  });

  it('takes its connection 200 ms before the deadline and expires on it at the deadline, not before', async () => {
    const { expiry, events } = setup();
    jest.setSystemTime(DEADLINE_MS - 500);
    const due = expiry.onDue(DEADLINE);
    await jest.advanceTimersByTimeAsync(299);
    expect(events).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(events).toEqual(['connection at=-200']);
    await jest.advanceTimersByTimeAsync(199);
    expect(events).toEqual(['connection at=-200']);
    await jest.advanceTimersByTimeAsync(1);
    await due;
    expect(events).toEqual(['connection at=-200', `expire now=${DEADLINE} at=0 on=held`]);
  });

  it('a job picked up after its deadline expires at once', async () => {
    const { expiry, events } = setup();
    jest.setSystemTime(DEADLINE_MS + 40);
    await expiry.onDue(DEADLINE);
    expect(events).toEqual(['connection at=40', `expire now=${DEADLINE} at=40 on=held`]);
  });

  it('waits again when its timer ends before the clock reaches the deadline (never expires the second before)', async () => {
    const { expiry, events } = setup(new JitteryClock(3));
    jest.setSystemTime(DEADLINE_MS - 500);
    const due = expiry.onDue(DEADLINE);
    await jest.advanceTimersByTimeAsync(510);
    await due;
    // One timer alone would have run it at -3, with `now` still DEADLINE - 1: nothing expired.
    expect(events).toEqual(['connection at=-200', `expire now=${DEADLINE} at=0 on=held`]);
  });

  it('a job that fires more than 5 s early leaves its second to the sweep and a later job', async () => {
    const { expiry, events } = setup();
    jest.setSystemTime(DEADLINE_MS - 6000);
    await expiry.onDue(DEADLINE);
    expect(events).toEqual([]);
  });
});
