import { InMemoryRateLimiter } from './rate-limiter';

describe('InMemoryRateLimiter', () => {
  it('allows `limit` hits in any window, sliding', async () => {
    let now = 59_000;
    const limiter = new InMemoryRateLimiter(() => now);
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await limiter.hit('ip', 10, 60_000));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(results[10]).toBe(false);
    expect(await limiter.hit('other-ip', 10, 60_000)).toBe(true);
    now += 1_500; // across a minute boundary: still the same sliding minute
    expect(await limiter.hit('ip', 10, 60_000)).toBe(false);
    now += 58_600; // the first hits are now more than 60 s old
    expect(await limiter.hit('ip', 10, 60_000)).toBe(true);
  });

  it('token bucket: burst, then the refill rate', async () => {
    let now = 0;
    const limiter = new InMemoryRateLimiter(() => now);
    let taken = 0;
    for (let i = 0; i < 5; i++) if (await limiter.take('a', 2, 3)) taken++;
    expect(taken).toBe(3);
    now += 500; // one token refilled at 2/s
    expect(await limiter.take('a', 2, 3)).toBe(true);
    expect(await limiter.take('a', 2, 3)).toBe(false);
  });
});
