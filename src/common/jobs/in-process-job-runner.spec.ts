import { InProcessJobRunner, MAX_TIMER_MS } from './in-process-job-runner';

describe('InProcessJobRunner', () => {
  afterEach(() => jest.useRealTimers());

  it('runs a job once per job id while it waits, and retries a failing one', async () => {
    const runner = new InProcessJobRunner();
    const seen: string[] = [];
    let failures = 1;
    runner.process('rfq-fill', async (data, context) => {
      seen.push(`${data.rfqId}#${context.attempt}`);
      if (failures-- > 0) throw new Error('transient');
    });
    await runner.enqueue('rfq-fill', { rfqId: 'a' }, { jobId: 'fill-a' });
    await runner.enqueue('rfq-fill', { rfqId: 'a' }, { jobId: 'fill-a' });
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toEqual(['a#1', 'a#2']);
    await runner.close();
  });

  it('holds a delay longer than one timer can (no early run past 24.8 days)', async () => {
    jest.useFakeTimers();
    const runner = new InProcessJobRunner();
    const ran: number[] = [];
    runner.process('settlement', async () => void ran.push(Date.now()));
    const start = Date.now();
    await runner.enqueue('settlement', { asset: 'SOL', expiration: 1 }, { delayMs: MAX_TIMER_MS + 60_000 });
    await jest.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(ran).toEqual([]);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(ran).toHaveLength(1);
    expect(ran[0] - start).toBeGreaterThanOrEqual(MAX_TIMER_MS + 60_000);
    await runner.close();
  });
});
