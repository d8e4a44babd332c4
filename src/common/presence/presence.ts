import type Redis from 'ioredis';
import { logger } from '../logging/logger';

/** How often an instance says which accounts it holds a connection of (docs/spec/design.md 19). */
const PRESENCE_HEARTBEAT_MS = 1000;
/** A record not renewed for this long (ms) counts as none: the account is gone from every instance. */
export const PRESENCE_TTL_MS = 10_000;
/** Every this many heartbeats the records past the TTL are dropped (their memory only: reads skip them already). */
const PRUNE_EVERY_BEATS = 60;

/** Whether a record written at `at` (unix ms) still counts at `nowMs`; a missing or unreadable time (NaN) does not. */
const isFresh = (at: number, nowMs: number) => nowMs - at <= PRESENCE_TTL_MS;

/** Where the instances' presence records are kept: the last time (unix ms) each account was seen with an open connection. */
export interface PresenceStore {
  touch(accountIds: readonly number[], nowMs: number): Promise<void>;
  /** The accounts' records renewed within the TTL at `nowMs`; an account without one (never seen, or gone longer) is absent. */
  read(accountIds: readonly number[], nowMs: number): Promise<Map<number, number>>;
  /** Drops the records past the TTL at `nowMs`. */
  prune(nowMs: number): Promise<void>;
}

/** The embedded mode: one instance, the records in memory. */
export class MemoryPresenceStore implements PresenceStore {
  private readonly seen = new Map<number, number>();

  touch(accountIds: readonly number[], nowMs: number): Promise<void> {
    for (const id of accountIds) this.seen.set(id, Math.max(nowMs, this.seen.get(id) ?? 0));
    return Promise.resolve();
  }

  read(accountIds: readonly number[], nowMs: number): Promise<Map<number, number>> {
    const fresh = accountIds.flatMap((id) => {
      const at = this.seen.get(id);
      return at !== undefined && isFresh(at, nowMs) ? [[id, at] as const] : [];
    });
    return Promise.resolve(new Map(fresh));
  }

  prune(nowMs: number): Promise<void> {
    for (const [id, at] of this.seen) if (!isFresh(at, nowMs)) this.seen.delete(id);
    return Promise.resolve();
  }
}

/** Fields per HSET: a heartbeat of many accounts is a few commands. */
const FIELDS_PER_COMMAND = 1000;

/** Deletes the hash's fields whose time is before ARGV[1], in one step (HDEL's arguments in slices Lua's stack takes). */
const PRUNE = `
local all = redis.call('HGETALL', KEYS[1])
local cutoff = tonumber(ARGV[1])
local stale = {}
for i = 1, #all, 2 do
  if tonumber(all[i + 1]) < cutoff then stale[#stale + 1] = all[i] end
end
for i = 1, #stale, 4000 do
  redis.call('HDEL', KEYS[1], unpack(stale, i, math.min(i + 3999, #stale)))
end
return #stale
`;

/**
 * With REDIS_URL: one hash shared by the instances, `<prefix>:presence`, a field per account
 * holding the time (unix ms) an instance last saw it connected. A heartbeat is one HSET per
 * FIELDS_PER_COMMAND accounts, not a command per account: a key per account made every heartbeat
 * of 5,000 connections a 5,000-command pipeline, 150 to 375 ms in flight holding about 1 KB per
 * account (bench F3-heap's second level). A record's age is read from the time it holds (an
 * instance killed without closing its sockets stops renewing, and the time it holds ages); old
 * fields are pruned every minute.
 */
export class RedisPresenceStore implements PresenceStore {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:presence`;
  }

  async touch(accountIds: readonly number[], nowMs: number): Promise<void> {
    if (accountIds.length === 0) return;
    const value = String(nowMs);
    const commands: Array<Array<string>> = [];
    for (let i = 0; i < accountIds.length; i += FIELDS_PER_COMMAND) {
      commands.push(accountIds.slice(i, i + FIELDS_PER_COMMAND).flatMap((id) => [String(id), value]));
    }
    const replies = await this.redis.pipeline(commands.map((fields) => ['hset', this.key, ...fields])).exec();
    const failed = replies?.find(([error]) => error !== null);
    if (failed) throw failed[0] instanceof Error ? failed[0] : new Error(String(failed[0]));
  }

  async read(accountIds: readonly number[], nowMs: number): Promise<Map<number, number>> {
    if (accountIds.length === 0) return new Map();
    const values = await this.redis.hmget(this.key, ...accountIds.map(String));
    const fresh = accountIds.flatMap((id, i) => {
      const at = values[i] === null ? NaN : Number(values[i]);
      return isFresh(at, nowMs) ? [[id, at] as const] : [];
    });
    return new Map(fresh);
  }

  async prune(nowMs: number): Promise<void> {
    await this.redis.eval(PRUNE, 1, this.key, String(nowMs - PRESENCE_TTL_MS));
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
  private beats = 0;

  constructor(
    private readonly store: PresenceStore,
    private readonly nowMs: () => number = Date.now,
  ) {}

  opened(accountId: number): void {
    this.local.set(accountId, (this.local.get(accountId) ?? 0) + 1);
    this.write([accountId]);
    if (!this.timer) {
      this.timer = setInterval(() => this.beat(), PRESENCE_HEARTBEAT_MS);
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
    const seen = await this.store.read(
      accountIds.filter((id) => !this.local.has(id)),
      now,
    );
    for (const id of accountIds) if (this.local.has(id)) seen.set(id, now);
    return seen;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private beat(): void {
    this.write([...this.local.keys()]);
    this.beats += 1;
    if (this.beats % PRUNE_EVERY_BEATS !== 0) return;
    this.store.prune(this.nowMs()).catch((error) => logger.event('warn', 'presence prune failed', { error: String(error) }, 'Presence'));
  }

  private write(accountIds: number[]): void {
    this.store.touch(accountIds, this.nowMs()).catch((error) => logger.event('warn', 'presence write failed', { error: String(error) }, 'Presence'));
  }
}
