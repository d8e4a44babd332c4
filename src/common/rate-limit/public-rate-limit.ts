import type { RateLimiter } from './rate-limiter';

/** A lease asks the shared bucket for this many seconds of the rate at once (at least one token). */
const LEASE_SECONDS = 0.05;
/** Tokens of a lease not spent within this are dropped: an instance never holds a client's tokens longer. */
const LEASE_TTL_MS = 1000;
/** Past this many clients held, the ones with nothing left are forgotten (at most once a second). */
const MAX_SHARES = 50_000;

/** This instance's share of one client's bucket. */
interface Share {
  /** Tokens leased from the shared bucket and not spent yet. */
  tokens: number;
  /** When the unspent tokens are dropped (ms). */
  expires: number;
  /**
   * The shared bucket is not asked again before then (ms): it was empty (the client is refused
   * here until then), or unreadable (the client has what this instance gave it until then).
   */
  holdUntil: number;
  /** The lease being asked for. */
  pending: Promise<void> | null;
}

/**
 * The public reads' token bucket per client IP (docs/spec/design.md section 16): unauthenticated
 * HTTP routes and the public/* methods other than sign-in share it. The bucket is the RateLimiter's
 * (in Redis with several instances), but an instance takes its tokens in leases of LEASE_SECONDS
 * of the rate: a public read that finds a leased token is admitted with no round trip, and a
 * client that is refused is refused here until its bucket has a token again. Tokens are taken
 * from the shared bucket before they are spent, so all instances together never admit more than
 * the bucket holds. If the bucket cannot be read (Redis down), public reads go on, limited by
 * this instance alone to the same rate.
 */
export class PublicRateLimit {
  /** The same shares over the per-account bucket of authenticated reads (docs/spec/design.md section 20). */
  static forQueries(limiter: RateLimiter, ratePerSecond: number, burst: number): QueryRateLimit {
    return new QueryRateLimit(limiter, ratePerSecond, burst, Date.now, 'query');
  }

  /** The same shares over the per-account bucket of rfq.* calls (RFQ_RATE_PER_SECOND / RFQ_RATE_BURST, docs/spec/design.md section 0). */
  static forRfq(limiter: RateLimiter, ratePerSecond: number, burst: number): RfqRateLimit {
    return new RfqRateLimit(limiter, ratePerSecond, burst, Date.now, 'rfq');
  }

  private readonly shares = new Map<string, Share>();
  private readonly want: number;
  private lastPrune = 0;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
    /** The shared bucket's key prefix: `pub` (per client IP), `query` or `rfq` (per account, docs/spec/design.md sections 0 and 20). */
    private readonly prefix = 'pub',
  ) {
    this.want = Math.max(1, Math.min(burst, Math.ceil(ratePerSecond * LEASE_SECONDS)));
  }

  /**
   * 0: admitted; a number > 0: refused, the milliseconds until a token is there. Synchronous when
   * this instance holds a token (or knows the bucket is empty); a promise when it must ask.
   */
  admit(ip: string): number | Promise<number> {
    const now = this.now();
    const share = this.shares.get(ip);
    if (share !== undefined) {
      if (share.tokens >= 1 && share.expires > now) {
        share.tokens -= 1;
        return 0;
      }
      if (share.holdUntil > now) return share.holdUntil - now;
      if (share.pending) return share.pending.then(() => this.admit(ip));
    }
    return this.ask(ip, share ?? this.add(ip, now)).then(() => this.admit(ip));
  }

  private add(ip: string, now: number): Share {
    if (this.shares.size >= MAX_SHARES && now - this.lastPrune >= 1000) {
      this.lastPrune = now;
      for (const [key, s] of this.shares) if (s.pending === null && s.holdUntil <= now && s.expires <= now) this.shares.delete(key);
    }
    const share: Share = { tokens: 0, expires: 0, holdUntil: 0, pending: null };
    this.shares.set(ip, share);
    return share;
  }

  /** Asks the shared bucket for a lease; the callers then take from the share like any other. */
  private ask(ip: string, share: Share): Promise<void> {
    const pending = this.limiter.lease(`${this.prefix}:${ip}`, this.ratePerSecond, this.burst, this.want).then(
      (taken) => this.settle(share, taken),
      () => this.alone(share),
    );
    share.pending = pending;
    return pending;
  }

  private settle(share: Share, taken: number): void {
    const now = this.now();
    share.pending = null;
    if (taken > 0) {
      share.tokens = (share.expires > now ? share.tokens : 0) + taken;
      share.expires = now + LEASE_TTL_MS;
      share.holdUntil = 0;
    } else {
      share.tokens = 0;
      share.holdUntil = now - taken;
    }
  }

  /** The shared bucket is unreadable: this instance gives the client a second of the rate, and asks again after it. */
  private alone(share: Share): void {
    const now = this.now();
    share.pending = null;
    share.tokens = Math.max(1, Math.ceil((this.ratePerSecond * LEASE_TTL_MS) / 1000));
    share.expires = now + LEASE_TTL_MS;
    share.holdUntil = share.expires;
  }
}

/**
 * The authenticated reads' token bucket per account (QUERY_RATE_PER_SECOND / QUERY_RATE_BURST):
 * `/query/*` and the rfq read methods. Keyed by account id; the same leased shares as the public one.
 */
export class QueryRateLimit extends PublicRateLimit {}

/**
 * The rfq.* calls' token bucket per account (RFQ_RATE_PER_SECOND / RFQ_RATE_BURST): keyed by
 * account id, the shared bucket `rfq:<account>` as before, taken in the same leased shares, so a
 * call that finds a leased token makes no round trip to Redis before its own work.
 */
export class RfqRateLimit extends PublicRateLimit {}
