import { CANCEL_ON_DISCONNECT_GRACE_MS, disconnectedMakers } from './cancel-on-disconnect';

describe('disconnectedMakers (design.md 19, cancel on disconnect)', () => {
  const now = 1_000_000;
  const grace = CANCEL_ON_DISCONNECT_GRACE_MS;

  it('a maker seen within the grace keeps its quotes; one seen longer ago loses them', () => {
    const watched = [
      { accountId: 1, lastSeenMs: now, watchedSinceMs: now - 60_000 },
      { accountId: 2, lastSeenMs: now - grace, watchedSinceMs: now - 60_000 },
      { accountId: 3, lastSeenMs: now - grace - 1, watchedSinceMs: now - 60_000 },
    ];
    expect(disconnectedMakers(now, watched)).toEqual([3]);
  });

  it('a maker without a presence record counts its grace from when the checker started watching it', () => {
    expect(disconnectedMakers(now, [{ accountId: 4, lastSeenMs: undefined, watchedSinceMs: now - 100 }])).toEqual([]);
    expect(disconnectedMakers(now, [{ accountId: 4, lastSeenMs: undefined, watchedSinceMs: now - grace - 1 }])).toEqual([4]);
  });

  it('a record newer than the watch wins: a maker that reconnected keeps its quotes', () => {
    expect(disconnectedMakers(now, [{ accountId: 5, lastSeenMs: now - 10, watchedSinceMs: now - 60_000 }])).toEqual([]);
  });

  it('the grace leaves room for the check and heartbeat periods within 5 s', () => {
    // Last seen at most one heartbeat before the close or the death; found at most one check after the grace.
    expect(1000 + grace + 1000).toBeLessThanOrEqual(5000 - 500);
  });
});
