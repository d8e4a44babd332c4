import type Redis from 'ioredis';

/**
 * The rate-limit port: counters shared by every instance through Redis when it is configured,
 * else held in this process.
 */
export abstract class RateLimiter {
  /** Fixed window: true when this hit is within `limit` hits per `windowMs` for `key`. */
  abstract hit(key: string, limit: number, windowMs: number): Promise<boolean>;
  /** Token bucket: true when a token was taken (refill `ratePerSecond`, capacity `burst`). */
  abstract take(key: string, ratePerSecond: number, burst: number): Promise<boolean>;
}

export class InMemoryRateLimiter extends RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = this.now();
    const start = now - (now % windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 100_000) this.prune(start);
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= limit;
  }

  async take(key: string, ratePerSecond: number, burst: number): Promise<boolean> {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  private prune(currentStart: number): void {
    for (const [key, window] of this.windows) if (window.start !== currentStart) this.windows.delete(key);
  }
}

const TAKE = `
local tokens = tonumber(redis.call('HGET', KEYS[1], 't'))
local at = tonumber(redis.call('HGET', KEYS[1], 'a'))
local now = tonumber(ARGV[1]); local rate = tonumber(ARGV[2]); local burst = tonumber(ARGV[3])
if tokens == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return ok`;

export class RedisRateLimiter extends RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = Date.now();
    const redisKey = `${this.prefix}:rl:${key}:${Math.floor(now / windowMs)}`;
    const [[, count]] = (await this.redis.multi().incr(redisKey).pexpire(redisKey, windowMs * 2).exec()) as [[Error | null, number]];
    return count <= limit;
  }

  async take(key: string, ratePerSecond: number, burst: number): Promise<boolean> {
    // Redis server time would be better across hosts; instances share one clock source (NTP) here.
    const result = await this.redis.eval(TAKE, 1, `${this.prefix}:tb:${key}`, Date.now(), ratePerSecond, burst);
    return result === 1;
  }
}
