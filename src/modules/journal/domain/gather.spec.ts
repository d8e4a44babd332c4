import { GATHER, GatherPolicy } from './gather';

describe('GatherPolicy', () => {
  it('waits for two asks before any hold is observed (a commit of about a millisecond)', () => {
    expect(new GatherPolicy().asks).toBe(2);
  });

  it('follows the observed holds: each fill pays at most SHARE_MS of a batch hold', () => {
    const fast = new GatherPolicy();
    for (let i = 0; i < 50; i++) fast.observeHold(0.4);
    expect(fast.asks).toBe(1);
    const slow = new GatherPolicy();
    for (let i = 0; i < 50; i++) slow.observeHold(1.4);
    expect(slow.asks).toBe(3);
    expect(1.4 / slow.asks).toBeLessThanOrEqual(GATHER.SHARE_MS);
  });

  it('never waits for more than MAX_ASKS (a stalled commit), and ignores nonsense', () => {
    const p = new GatherPolicy();
    for (let i = 0; i < 50; i++) p.observeHold(40);
    expect(p.asks).toBe(GATHER.MAX_ASKS);
    const q = new GatherPolicy();
    q.observeHold(Number.NaN);
    q.observeHold(-5);
    expect(q.asks).toBe(2);
  });

  it('one slow batch moves the estimate by WEIGHT of its difference, not all of it', () => {
    const p = new GatherPolicy();
    for (let i = 0; i < 50; i++) p.observeHold(0.4);
    p.observeHold(3);
    expect(p.asks).toBe(2); // 0.4 + 0.2 * 2.6 = 0.92 ms
  });
});
