import type Redis from 'ioredis';
import { logger } from '../logging/logger';

/** How often an instance says which accounts it holds a connection of (docs/spec/design.md 19). */
const PRESENCE_HEARTBEAT_MS = 1000;
/** How long a presence record outlives its last renewal in Redis: only garbage collection, the record holds its time. */
const PRESENCE_TTL_MS = 10_000;

/** Where the instances' presence records are kept: the last time (unix ms) each account was seen with an open connection. */
export interface PresenceStore {
  touch(accountIds: readonly number[], nowMs: number): Promise<void>;
  /** The accounts' records; an account without one (never seen, or gone for longer than the TTL) is absent. */
  read(accountIds: readonly number[]): Promise<Map<number, number>>;
}

/** The embedded mode: one instance, the records in memory. */
export class MemoryPresenceStore implements PresenceStore {
  private readonly seen = new Map<number, number>();

  touch(accountIds: readonly number[], nowMs: number): Promise<void> {
    for (const id of accountIds) this.seen.set(id, Math.max(nowMs, this.seen.get(id) ?? 0));
    return Promise.resolve();
  }

  read(accountIds: readonly number[]): Promise<Map<number, number>> {
    return Promise.resolve(new Map(accountIds.flatMap((id) => (this.seen.has(id) ? [[id, this.seen.get(id)!] as const] : []))));
  }
}

/**
 * With REDIS_URL: one key per account, shared by the instances; each instance writes the time it
 * last saw the account connected, and the key expires when no instance renews it (an instance
 * killed without closing its sockets stops renewing, and the time it holds ages).
 */
export class RedisPresenceStore implements PresenceStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(accountId: number): string {
    return `${this.prefix}:presence:${accountId}`;
  }

  async touch(accountIds: readonly number[], nowMs: number): Promise<void> {
    if (accountIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const id of accountIds) pipeline.set(this.key(id), String(nowMs), 'PX', PRESENCE_TTL_MS);
    await pipeline.exec();
  }

  async read(accountIds: readonly number[]): Promise<Map<number, number>> {
    if (accountIds.length === 0) return new Map();
    const values = await this.redis.mget(accountIds.map((id) => this.key(id)));
    return new Map(accountIds.flatMap((id, i) => (values[i] === null ? [] : [[id, Number(values[i])] as const])));
  }
}

/**
 * Which accounts have an open connection (docs/spec/design.md 19, cancel on disconnect). The
 * gateway tells it when a signed-in connection opens or closes on this instance; every
 * PRESENCE_HEARTBEAT_MS it renews the records of the accounts it holds, and the close of an
 * account's last local connection is written at once. `lastSeen` answers for this instance's
 * own connections without asking the store.
 */
export class Presence {
  private readonly local = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: PresenceStore,
    private readonly nowMs: () => number = Date.now,
  ) {}

  opened(accountId: number): void {
    this.local.set(accountId, (this.local.get(accountId) ?? 0) + 1);
    this.write([accountId]);
    if (!this.timer) {
      this.timer = setInterval(() => this.write([...this.local.keys()]), PRESENCE_HEARTBEAT_MS);
      this.timer.unref();
    }
  }

  closed(accountId: number): void {
    const left = (this.local.get(accountId) ?? 0) - 1;
    if (left > 0) {
      this.local.set(accountId, left);
      return;
    }
    this.local.delete(accountId);
    // Seen until now: the grace counts from this close, not from the last heartbeat.
    this.write([accountId]);
  }

  /** The last time each account was seen connected (now for this instance's own); absent: no record. */
  async lastSeen(accountIds: readonly number[]): Promise<Map<number, number>> {
    const now = this.nowMs();
    const seen = await this.store.read(accountIds.filter((id) => !this.local.has(id)));
    for (const id of accountIds) if (this.local.has(id)) seen.set(id, now);
    return seen;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private write(accountIds: number[]): void {
    this.store.touch(accountIds, this.nowMs()).catch((error) => logger.event('warn', 'presence write failed', { error: String(error) }, 'Presence'));
  }
}
