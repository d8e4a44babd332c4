import Redis from 'ioredis';
import { MemoryPresenceStore, PRESENCE_TTL_MS, Presence, type PresenceStore, RedisPresenceStore } from './presence';

describe('Presence', () => {
  it('an account is seen now while this instance holds a connection of it, and at its last close after', async () => {
    let now = 1000;
    const presence = new Presence(new MemoryPresenceStore(), () => now);
    try {
      presence.opened(7);
      presence.opened(7);
      now = 2000;
      presence.closed(7);
      now = 3000;
      expect(await presence.lastSeen([7, 8])).toEqual(new Map([[7, 3000]]));
      presence.closed(7);
      now = 9000;
      await Promise.resolve();
      expect(await presence.lastSeen([7, 8])).toEqual(new Map([[7, 3000]]));
    } finally {
      presence.stop();
    }
  });
});

describe('MemoryPresenceStore', () => {
  it('a record not renewed for longer than the TTL reads as none, and the prune drops it alone', async () => {
    const store = new MemoryPresenceStore();
    await store.touch([1, 2], 1000);
    await store.touch([2], 5000);
    expect(await store.read([1, 2, 3], 1000 + PRESENCE_TTL_MS)).toEqual(
      new Map([
        [1, 1000],
        [2, 5000],
      ]),
    );
    expect(await store.read([1, 2], 1001 + PRESENCE_TTL_MS)).toEqual(new Map([[2, 5000]]));
    await store.prune(1001 + PRESENCE_TTL_MS);
    await store.touch([1], 0); // (a late write of an older time does not bring back more than it holds)
    expect(await store.read([1, 2], 1001 + PRESENCE_TTL_MS)).toEqual(new Map([[2, 5000]]));
  });
});

describe('Presence heartbeat', () => {
  it('renews every local account each second in one touch, and prunes every 60 beats', () => {
    jest.useFakeTimers();
    const touches: number[][] = [];
    let prunes = 0;
    const store: PresenceStore = {
      touch: async (ids) => void touches.push([...ids]),
      read: async () => new Map(),
      prune: async () => void (prunes += 1),
    };
    const presence = new Presence(store, () => 0);
    try {
      presence.opened(1);
      presence.opened(2);
      touches.length = 0;
      jest.advanceTimersByTime(59_000);
      expect(touches).toHaveLength(59);
      expect(touches.every((ids) => ids.join() === '1,2')).toBe(true);
      expect(prunes).toBe(0);
      jest.advanceTimersByTime(1000);
      expect(prunes).toBe(1);
    } finally {
      presence.stop();
      jest.useRealTimers();
    }
  });
});

(process.env.REDIS_URL ? describe : describe.skip)('RedisPresenceStore (real Redis)', () => {
  const prefix = `legwork-presence-spec-${process.pid}-${Date.now()}`;
  let redis: Redis;
  let store: RedisPresenceStore;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
    store = new RedisPresenceStore(redis, prefix);
  });

  afterAll(async () => {
    await redis.del(`${prefix}:presence`);
    await redis.quit();
  });

  it('keeps every account in one hash, written a thousand fields a command, read with their times, past the TTL as none', async () => {
    const ids = Array.from({ length: 2500 }, (_, i) => i + 1);
    await store.touch(ids, 1_000_000);
    await store.touch([7], 1_004_000);
    expect(await redis.type(`${prefix}:presence`)).toBe('hash');
    expect(await redis.hlen(`${prefix}:presence`)).toBe(2500);
    expect(await redis.keys(`${prefix}:presence:*`)).toEqual([]);
    const seen = await store.read([1, 7, 2500, 2501], 1_000_000 + PRESENCE_TTL_MS);
    expect(seen).toEqual(
      new Map([
        [1, 1_000_000],
        [7, 1_004_000],
        [2500, 1_000_000],
      ]),
    );
    expect(await store.read([1, 7], 1_000_001 + PRESENCE_TTL_MS)).toEqual(new Map([[7, 1_004_000]]));
  });

  it('prunes the fields past the TTL and keeps the others', async () => {
    await store.prune(1_000_001 + PRESENCE_TTL_MS);
    expect(await redis.hgetall(`${prefix}:presence`)).toEqual({ '7': '1004000' });
    await store.prune(1_004_000 + PRESENCE_TTL_MS);
    expect(await redis.hlen(`${prefix}:presence`)).toBe(1);
  });
});
