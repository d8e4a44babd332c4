import { InMemoryRateLimiter } from './rate-limiter';

describe('InMemoryRateLimiter', () => {
  it('allows `limit` hits in any window, sliding, and says when the next is admitted', async () => {
    let now = 59_000;
    const limiter = new InMemoryRateLimiter(() => now);
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await limiter.window('ip', 10, 60_000));
    expect(results.filter((r) => r === 0)).toHaveLength(10);
    expect(results[10]).toBe(60_000);
    expect(await limiter.window('other-ip', 10, 60_000)).toBe(0);
    now += 1_500; // across a minute boundary: still the same sliding minute
    expect(await limiter.window('ip', 10, 60_000)).toBe(58_500);
    now += 58_600; // the first hits are now more than 60 s old
    expect(await limiter.window('ip', 10, 60_000)).toBe(0);
  });

  it('token bucket: burst, then the refill rate; a refusal says when a token is there', async () => {
    let now = 0;
    const limiter = new InMemoryRateLimiter(() => now);
    let taken = 0;
    for (let i = 0; i < 5; i++) if ((await limiter.bucket('a', 2, 3)) === 0) taken++;
    expect(taken).toBe(3);
    expect(await limiter.bucket('a', 2, 3)).toBe(500);
    now += 500; // one token refilled at 2/s
    expect(await limiter.bucket('a', 2, 3)).toBe(0);
    now += 100;
    expect(await limiter.bucket('a', 2, 3)).toBe(400);
  });

  it('a lease takes up to `want` whole tokens', async () => {
    const limiter = new InMemoryRateLimiter(() => 0);
    expect(await limiter.lease('a', 10, 25, 10)).toBe(10);
    expect(await limiter.lease('a', 10, 25, 10)).toBe(10);
    expect(await limiter.lease('a', 10, 25, 10)).toBe(5);
    expect(await limiter.lease('a', 10, 25, 10)).toBe(-100);
  });

  it('tokens given back are leased again, up to the burst', async () => {
    const limiter = new InMemoryRateLimiter(() => 1_000);
    expect(await limiter.lease('k', 10, 100, 100)).toBe(100);
    limiter.giveBack('k', 100, 60);
    expect(await limiter.lease('k', 10, 100, 100)).toBe(60);
    limiter.giveBack('k', 100, 500);
    expect(await limiter.lease('k', 10, 100, 1000)).toBe(100);
  });

  it('slots: at most `max` holders, renewed by the same holder, freed, or expired when not renewed', async () => {
    let now = 0;
    const limiter = new InMemoryRateLimiter(() => now);
    expect(await limiter.hold('acct', 'a', 2, 1000)).toBe(0);
    expect(await limiter.hold('acct', 'b', 2, 1000)).toBe(0);
    expect(await limiter.hold('acct', 'c', 2, 1000)).toBe(1000);
    now = 400;
    expect(await limiter.hold('acct', 'a', 2, 1000)).toBe(0); // a renewal, not a third slot
    expect(await limiter.hold('acct', 'c', 2, 1000)).toBe(600); // b's slot would free first
    await limiter.free('acct', 'a');
    expect(await limiter.hold('acct', 'c', 2, 1000)).toBe(0);
    now = 1500; // b was not renewed: its slot freed itself
    expect(await limiter.hold('acct', 'd', 2, 1000)).toBe(0);
    expect(await limiter.hold('other', 'x', 2, 1000)).toBe(0);
  });
});
