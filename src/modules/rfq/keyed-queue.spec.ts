import { KeyedQueue } from './keyed-queue';

describe('KeyedQueue', () => {
  it('runs the tasks of one key one at a time in order, and of other keys alongside; a failure does not stop the next', async () => {
    const queue = new KeyedQueue<number>();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const a1 = queue.run(1, task('a1', 20, true));
    const a2 = queue.run(1, task('a2', 1));
    const b1 = queue.run(2, task('b1', 5));
    await expect(a1).rejects.toThrow('a1');
    await expect(a2).resolves.toBe('a2');
    await expect(b1).resolves.toBe('b1');
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
  });
});
