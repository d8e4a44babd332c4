import type Redis from 'ioredis';

/**
 * The rate-limit port: counters shared by every instance through Redis when it is configured,
 * else held in this process. A refusal says how long to wait (docs/spec/design.md section 16:
 * every 429 carries Retry-After, every 1005 and RFQ_RATE_LIMITED `retry_after_ms`).
 */
export abstract class RateLimiter {
  /**
   * Sliding window: 0 when, counting this hit, `key` has had at most `limit` admitted hits in the
   * last `windowMs` (refused hits do not count, so a client that waits gets back in); else the
   * milliseconds (>= 1) until a hit would be admitted.
   */
  abstract window(key: string, limit: number, windowMs: number): Promise<number>;
  /**
   * Token bucket (refill `ratePerSecond`, capacity `burst`): takes up to `want` tokens and answers
   * how many it took (>= 1), or, when not one is there, minus the milliseconds until one is.
   */
  abstract lease(key: string, ratePerSecond: number, burst: number, want: number): Promise<number>;

  /**
   * Slots: `holder` takes (or renews) one of at most `max` slots of `key` for `ttlMs`; a slot not
   * renewed in time frees itself (its instance died). 0 when held, else the milliseconds (>= 1)
   * until the soonest slot would free itself if nobody renewed it.
   */
  abstract hold(key: string, holder: string, max: number, ttlMs: number): Promise<number>;
  /** Frees `holder`'s slot of `key` (nothing when it has none). */
  abstract free(key: string, holder: string): Promise<void>;

  /** One token of the bucket: 0 when taken, else the milliseconds (>= 1) until one is there. */
  async bucket(key: string, ratePerSecond: number, burst: number): Promise<number> {
    const taken = await this.lease(key, ratePerSecond, burst, 1);
    return taken > 0 ? 0 : -taken;
  }
}

export class InMemoryRateLimiter extends RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly slots = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async window(key: string, limit: number, windowMs: number): Promise<number> {
    const now = this.now();
    let hits = this.windows.get(key);
    if (!hits) {
      if (this.windows.size > 100_000) this.prune(now, windowMs);
      hits = [];
      this.windows.set(key, hits);
    }
    while (hits.length > 0 && hits[0] <= now - windowMs) hits.shift();
    // The hit that frees a place is the one `limit` places before the end.
    if (hits.length >= limit) return Math.max(1, hits[hits.length - limit] + windowMs - now);
    hits.push(now);
    return 0;
  }

  async lease(key: string, ratePerSecond: number, burst: number, want: number): Promise<number> {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size > 100_000) this.pruneBuckets(now);
      bucket = { tokens: burst, at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * ratePerSecond);
    bucket.at = Math.max(bucket.at, now);
    const taken = Math.min(want, Math.floor(bucket.tokens));
    if (taken < 1) return -Math.max(1, Math.ceil(((1 - bucket.tokens) / ratePerSecond) * 1000));
    bucket.tokens -= taken;
    return taken;
  }

  /** Puts back `count` tokens of a lease that was not used (a bucket never holds more than `burst`). */
  giveBack(key: string, burst: number, count: number): void {
    const bucket = this.buckets.get(key);
    if (bucket && count > 0) bucket.tokens = Math.min(burst, bucket.tokens + count);
  }

  async hold(key: string, holder: string, max: number, ttlMs: number): Promise<number> {
    const now = this.now();
    let held = this.slots.get(key);
    if (!held) {
      held = new Map();
      this.slots.set(key, held);
    }
    for (const [h, expires] of held) if (expires <= now) held.delete(h);
    if (!held.has(holder) && held.size >= max) return Math.max(1, Math.min(...held.values()) - now);
    held.set(holder, now + ttlMs);
    return 0;
  }

  async free(key: string, holder: string): Promise<void> {
    const held = this.slots.get(key);
    held?.delete(holder);
    if (held?.size === 0) this.slots.delete(key);
  }

  private prune(now: number, windowMs: number): void {
    for (const [key, hits] of this.windows) if (hits.length === 0 || hits[hits.length - 1] <= now - windowMs) this.windows.delete(key);
  }

  /** Buckets untouched for a minute are full again (every bucket of the exchange refills within one). */
  private pruneBuckets(now: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.at < now - 60_000) this.buckets.delete(key);
  }
}

const WINDOW = `
local now = tonumber(ARGV[1]); local window = tonumber(ARGV[2]); local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return math.max(1, math.ceil(tonumber(freeing[2]) + window - now))
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return 0`;

const LEASE = `
local tokens = tonumber(redis.call('HGET', KEYS[1], 't'))
local at = tonumber(redis.call('HGET', KEYS[1], 'a'))
local now = tonumber(ARGV[1]); local rate = tonumber(ARGV[2]); local burst = tonumber(ARGV[3]); local want = tonumber(ARGV[4])
if tokens == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local taken = math.min(want, math.floor(tokens))
local answer
if taken >= 1 then tokens = tokens - taken; answer = taken else answer = -math.max(1, math.ceil((1 - tokens) / rate * 1000)) end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(math.max(at, now)))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return answer`;

const HOLD = `
local now = tonumber(ARGV[1]); local ttl = tonumber(ARGV[2]); local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) and redis.call('ZCARD', KEYS[1]) >= max then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, math.ceil(tonumber(first[2]) - now))
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
return 0`;

/** The scripts as commands of the connection: EVALSHA (the script's hash, not its text, per call). */
type Scripted = Redis & {
  legworkWindow(key: string, now: number, windowMs: number, limit: number, member: string): Promise<number>;
  legworkLease(key: string, now: number, ratePerSecond: number, burst: number, want: number): Promise<number>;
  legworkHold(key: string, now: number, ttlMs: number, max: number, holder: string): Promise<number>;
};

export class RedisRateLimiter extends RateLimiter {
  private readonly redis: Scripted;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    super();
    if (!('legworkWindow' in redis)) redis.defineCommand('legworkWindow', { numberOfKeys: 1, lua: WINDOW });
    if (!('legworkLease' in redis)) redis.defineCommand('legworkLease', { numberOfKeys: 1, lua: LEASE });
    if (!('legworkHold' in redis)) redis.defineCommand('legworkHold', { numberOfKeys: 1, lua: HOLD });
    this.redis = redis as Scripted;
  }

  window(key: string, limit: number, windowMs: number): Promise<number> {
    const member = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    return this.redis.legworkWindow(`${this.prefix}:rl:${key}`, Date.now(), windowMs, limit, member);
  }

  lease(key: string, ratePerSecond: number, burst: number, want: number): Promise<number> {
    // Redis server time would be better across hosts; instances share one clock source (NTP) here.
    return this.redis.legworkLease(`${this.prefix}:tb:${key}`, Date.now(), ratePerSecond, burst, want);
  }

  hold(key: string, holder: string, max: number, ttlMs: number): Promise<number> {
    return this.redis.legworkHold(`${this.prefix}:slot:${key}`, Date.now(), ttlMs, max, holder);
  }

  async free(key: string, holder: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}:slot:${key}`, holder);
  }
}
