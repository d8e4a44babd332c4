import { InProcessJobRunner, MAX_TIMER_MS } from './in-process-job-runner';
import { workerConcurrency } from './job-runner';

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

  it('runs at most the queue concurrency at once; the others wait their turn, in order, and all run', async () => {
    const runner = new InProcessJobRunner();
    let active = 0;
    let peak = 0;
    const order: string[] = [];
    const gates: Array<() => void> = [];
    runner.process(
      'rfq-fill',
      async ({ rfqId }) => {
        active += 1;
        peak = Math.max(peak, active);
        order.push(rfqId);
        await new Promise<void>((resolve) => gates.push(resolve));
        active -= 1;
      },
      { concurrency: 2 },
    );
    for (const id of ['a', 'b', 'c', 'd', 'e']) await runner.enqueue('rfq-fill', { rfqId: id }, { jobId: `fill-${id}` });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['a', 'b']);
    while (order.length < 5 || gates.length > 0) {
      gates.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(peak).toBe(2);
    expect(await runner.depths()).toEqual({ 'rfq-fill': 0 });
    await runner.close();
  });

  it('close ends jobs still waiting for a slot without running them', async () => {
    const runner = new InProcessJobRunner(1);
    const ran: string[] = [];
    let open!: () => void;
    runner.process('rfq-fill', async ({ rfqId }) => {
      ran.push(rfqId);
      if (rfqId === 'a') await new Promise<void>((resolve) => (open = resolve));
    });
    await runner.enqueue('rfq-fill', { rfqId: 'a' }, { jobId: 'fill-a' });
    await runner.enqueue('rfq-fill', { rfqId: 'b' }, { jobId: 'fill-b' });
    await new Promise((r) => setTimeout(r, 20));
    const closed = runner.close();
    open();
    await closed;
    expect(ran).toEqual(['a']);
  });
});

describe('workerConcurrency', () => {
  it('keeps a fifth of the pool (at least one connection) from the fill workers, at most 8 fills', () => {
    expect(workerConcurrency('rfq-fill', 10)).toBe(8);
    expect(workerConcurrency('rfq-fill', 20)).toBe(8);
    expect(workerConcurrency('rfq-fill', 5)).toBe(4);
    expect(workerConcurrency('rfq-fill', 3)).toBe(2);
    expect(workerConcurrency('rfq-fill', 2)).toBe(1);
    expect(workerConcurrency('rfq-fill', 1)).toBe(1);
    expect(workerConcurrency('rfq-expiry', 1)).toBe(8);
    expect(workerConcurrency('settlement', 10)).toBe(8);
  });
});
