/**
 * Unit specs whose subject decides by time (rests, gathers, timeouts) run on jest's fake timers and
 * clock, so a loaded machine cannot move what they assert.
 */

/** Every test of the calling file on fake timers, `performance.now()` and `Date` included. */
export function useFakeTime(): void {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());
}

/** Advances the fake clock a millisecond at a time until `p` settles (at most `limitMs`); the milliseconds it took. */
export async function settle<T>(p: Promise<T>, limitMs = 60_000): Promise<number> {
  let done = false;
  void p.then(() => (done = true));
  let ms = 0;
  while (!done && ms < limitMs) {
    await jest.advanceTimersByTimeAsync(1);
    ms++;
  }
  await p;
  return ms;
}
