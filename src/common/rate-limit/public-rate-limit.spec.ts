import { PublicRateLimit } from './public-rate-limit';
import { InMemoryRateLimiter, RateLimiter } from './rate-limiter';

/** A shared bucket that counts its round trips. */
class CountingLimiter extends InMemoryRateLimiter {
  leases = 0;
  override lease(key: string, ratePerSecond: number, burst: number, want: number): Promise<number> {
    this.leases += 1;
    return super.lease(key, ratePerSecond, burst, want);
  }
}

const settle = async (value: number | Promise<number>) => value;

describe('PublicRateLimit', () => {
  it('admits the burst, then the rate; a refusal says when a token is there', async () => {
    let now = 0;
    const limit = new PublicRateLimit(new InMemoryRateLimiter(() => now), 20, 50, () => now);
    const answers: number[] = [];
    for (let i = 0; i < 60; i++) answers.push(await settle(limit.admit('a')));
    expect(answers.filter((a) => a === 0)).toHaveLength(50);
    expect(answers[50]).toBe(50);
    expect(await settle(limit.admit('b'))).toBe(0);
    now += 100; // two tokens at 20/s
    const later = [await settle(limit.admit('a')), await settle(limit.admit('a')), await settle(limit.admit('a'))];
    expect(later).toEqual([0, 0, 50]);
  });

  it('two instances on one shared bucket admit no more than it holds together', async () => {
    const now = 0;
    const shared = new InMemoryRateLimiter(() => now);
    const one = new PublicRateLimit(shared, 200, 50, () => now);
    const two = new PublicRateLimit(shared, 200, 50, () => now);
    let admitted = 0;
    for (let i = 0; i < 100; i++) if ((await settle((i % 2 ? one : two).admit('a'))) === 0) admitted++;
    expect(admitted).toBe(50);
  });

  it('leases: a high rate asks the shared bucket once per lease, not per request, and a refused client costs no round trip', async () => {
    const now = 0;
    const shared = new CountingLimiter(() => now);
    const limit = new PublicRateLimit(shared, 1000, 1000, () => now);
    for (let i = 0; i < 500; i++) expect(await settle(limit.admit('a'))).toBe(0);
    expect(shared.leases).toBe(10); // 50 tokens a lease (0.05 s of the rate)
    for (let i = 0; i < 501; i++) await settle(limit.admit('a'));
    const asked = shared.leases;
    for (let i = 0; i < 100; i++) expect(await settle(limit.admit('a'))).toBeGreaterThan(0);
    expect(shared.leases).toBe(asked);
  });

  it('requests arriving while a lease is asked wait for it instead of asking again', async () => {
    const shared = new CountingLimiter();
    const limit = new PublicRateLimit(shared, 1000, 1000);
    const answers = await Promise.all(Array.from({ length: 40 }, () => settle(limit.admit('a'))));
    expect(answers.every((a) => a === 0)).toBe(true);
    expect(shared.leases).toBe(1);
  });

  it('an unreadable shared bucket (Redis down) does not stop public reads: this instance limits alone', async () => {
    const broken = new (class extends RateLimiter {
      window(): Promise<number> {
        return Promise.reject(new Error('down'));
      }
      lease(): Promise<number> {
        return Promise.reject(new Error('down'));
      }
      hold(): Promise<number> {
        return Promise.reject(new Error('down'));
      }
      free(): Promise<void> {
        return Promise.reject(new Error('down'));
      }
    })();
    const limit = new PublicRateLimit(broken, 20, 50);
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) answers.push(await settle(limit.admit('a')));
    expect(answers.filter((a) => a === 0)).toHaveLength(20);
  });

  it('the rfq.* bucket per account: the shared bucket rfq:<account> (as before the leases), three tokens a lease at the default 50/s', async () => {
    const now = 0;
    const shared = new CountingLimiter(() => now);
    const keys: string[] = [];
    const lease = shared.lease.bind(shared);
    shared.lease = (key, rate, burst, want) => (keys.push(`${key} x${want}`), lease(key, rate, burst, want));
    const limit = PublicRateLimit.forRfq(shared, 50, 100);
    for (let i = 0; i < 99; i++) expect(await settle(limit.admit('7'))).toBe(0);
    expect(shared.leases).toBe(33);
    expect(new Set(keys)).toEqual(new Set(['rfq:7 x3']));
  });
});
