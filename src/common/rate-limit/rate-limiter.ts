import type Redis from 'ioredis';

/**
 * The rate-limit port: counters shared by every instance through Redis when it is configured,
 * else held in this process.
 */
export abstract class RateLimiter {
  /**
   * Sliding window: true when, counting this hit, `key` has had at most `limit` admitted hits in
   * the last `windowMs` (refused hits do not count, so a client that waits gets back in).
   */
  abstract hit(key: string, limit: number, windowMs: number): Promise<boolean>;
  /** Token bucket: true when a token was taken (refill `ratePerSecond`, capacity `burst`). */
  abstract take(key: string, ratePerSecond: number, burst: number): Promise<boolean>;
}

export class InMemoryRateLimiter extends RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = this.now();
    let hits = this.windows.get(key);
    if (!hits) {
      if (this.windows.size > 100_000) this.prune(now, windowMs);
      hits = [];
      this.windows.set(key, hits);
    }
    while (hits.length > 0 && hits[0] <= now - windowMs) hits.shift();
    if (hits.length >= limit) return false;
    hits.push(now);
    return true;
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

  private prune(now: number, windowMs: number): void {
    for (const [key, hits] of this.windows) if (hits.length === 0 || hits[hits.length - 1] <= now - windowMs) this.windows.delete(key);
  }
}

const HIT = `
local now = tonumber(ARGV[1]); local window = tonumber(ARGV[2]); local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return 1`;

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

/** The scripts as commands of the connection: EVALSHA (the script's hash, not its text, per call). */
type Scripted = Redis & {
  legworkHit(key: string, now: number, windowMs: number, limit: number, member: string): Promise<number>;
  legworkTake(key: string, now: number, ratePerSecond: number, burst: number): Promise<number>;
};

export class RedisRateLimiter extends RateLimiter {
  private readonly redis: Scripted;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    super();
    if (!('legworkHit' in redis)) redis.defineCommand('legworkHit', { numberOfKeys: 1, lua: HIT });
    if (!('legworkTake' in redis)) redis.defineCommand('legworkTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as Scripted;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const member = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    return (await this.redis.legworkHit(`${this.prefix}:rl:${key}`, Date.now(), windowMs, limit, member)) === 1;
  }

  async take(key: string, ratePerSecond: number, burst: number): Promise<boolean> {
    // Redis server time would be better across hosts; instances share one clock source (NTP) here.
    return (await this.redis.legworkTake(`${this.prefix}:tb:${key}`, Date.now(), ratePerSecond, burst)) === 1;
  }
}
