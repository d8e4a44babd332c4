import { PeriodicSweep } from './periodic-sweep';

describe('PeriodicSweep', () => {
  it('runs one pass at a time, survives a failing pass, and waits for the running pass on stop', async () => {
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    let release!: () => void;
    const sweep = new PeriodicSweep('test sweep', 60_000, async () => {
      passes++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (passes === 1) throw new Error('first pass fails');
      await new Promise<void>((r) => (release = r));
      running--;
    });
    await sweep.run(); // fails, logged, does not throw
    running = 0;
    const second = sweep.run();
    const same = sweep.run();
    expect(same).toBe(second);
    const stopping = sweep.stop();
    expect(sweep.stopped).toBe(true);
    release();
    await stopping;
    await sweep.run(); // stopped: no pass
    expect(passes).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('cuts a rest short on stop, so a shutdown does not wait out a rest sized from a slow statement', async () => {
    let rested = -1;
    const sweep = new PeriodicSweep('resting sweep', 60_000, async () => {
      const started = Date.now();
      await sweep.rest(60_000);
      rested = Date.now() - started;
    });
    void sweep.run();
    const started = Date.now();
    await sweep.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(rested).toBeGreaterThanOrEqual(0);
    expect(rested).toBeLessThan(1000);
    const after = Date.now();
    await sweep.rest(60_000); // stopped: no rest at all
    expect(Date.now() - after).toBeLessThan(1000);
  });

  it('rests the time asked when not stopped', async () => {
    const sweep = new PeriodicSweep('resting sweep', 60_000, async () => undefined);
    const started = Date.now();
    await sweep.rest(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
