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
});
