import type { AppConfig } from '../../common/config/config';
import { InMemoryRateLimiter } from '../../common/rate-limit/rate-limiter';
import { ReplayGovernor } from './replay-governor';

describe('ReplayGovernor', () => {
  it("a lease the account's budget cannot match gives the instance's share back: other accounts still replay", async () => {
    // 100 events/s an account, 400 the instance. The accounts' clock stands still: the waiting lease's
    // account never refills, whatever the time the other leases take on a slow machine (CI once took
    // more than its 10 ms retry, and it was granted 1 before the release).
    const frozen = Date.now();
    const governor = new ReplayGovernor(new InMemoryRateLimiter(() => frozen), { replayEventsPerSecond: 100 } as AppConfig);
    const spent = await governor.admit(1);
    expect(await spent.grant(1000)).toBe(100);
    // The account's bucket is empty: this lease waits (its first try took the instance's 300 left).
    const waiting = spent.grant(300);
    await new Promise((resolve) => setImmediate(resolve));
    for (const accountId of [2, 3, 4]) {
      const other = await governor.admit(accountId);
      expect(await other.grant(1000)).toBe(100);
      other.release();
    }
    spent.release();
    // Released: the waiting lease gives up instead of taking budget no replay will use.
    expect(await waiting).toBe(0);
  });

  it('a third replay of one account is refused with replay_busy while two run', async () => {
    const governor = new ReplayGovernor(new InMemoryRateLimiter(), { replayEventsPerSecond: 100 } as AppConfig);
    const first = await governor.admit(1);
    const second = await governor.admit(1);
    await expect(governor.admit(1)).rejects.toMatchObject({ code: 'RFQ_RATE_LIMITED' });
    first.release();
    second.release();
    (await governor.admit(1)).release();
  });
});
