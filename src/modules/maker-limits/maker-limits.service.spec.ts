import type { Clock } from '../../common/clock';
import type { Database } from '../../common/database/database';
import type { MarketDataService } from '../market-data/market-data.service';
import { LimitsHooks } from './limits-hooks';
import { MakerLimitsService } from './maker-limits.service';
import { type MakerLimitsRepository, quotesVersion } from './maker-limits.repository';

/**
 * get_limits (MakerLimitsService.view) on a maker's quotes as known here: one statement for the
 * row and the version, the live quotes read once per version, and a known quote dropped from the
 * usage the second it expires although the version has not moved (the sweep that moves it may
 * come later). Within a second nothing is walked; the second after an expiry must not keep it.
 */
describe('MakerLimitsService.view on known quotes', () => {
  const M = 1_000_000n;
  const legs = [{ instrument: 'SOL-X', quantity: M }];

  function setUp() {
    const now = { ms: 0 };
    const calls = { findWithVersion: 0, liveQuotes: 0, legsOf: 0 };
    const rows = {
      findWithVersion: async () => {
        calls.findWithVersion++;
        const row = { limits: { max_open_quotes: 10 }, adminLimits: {}, trippedAt: null, frozenUntil: null, tripReason: null };
        return { row, version: quotesVersion(7n, '3', false) };
      },
      liveQuotes: async (_account: number, liveAfter: number) => {
        calls.liveQuotes++;
        return [
          { id: 'a', expiresAt: 100 },
          { id: 'b', expiresAt: 105 },
        ].filter((q) => q.expiresAt > liveAfter);
      },
      legsOf: async (ids: readonly string[]) => {
        calls.legsOf++;
        return ids.map((id) => ({ id, asset: 'SOL', legs }));
      },
    } as unknown as MakerLimitsRepository;
    const market = {
      greeksAt: () => new Map([['SOL-X', { delta: 500_000n, vega: 20n * M }]]),
      indexPrices: () => [{ asset: 'SOL', price: 150n * M }],
    } as unknown as MarketDataService;
    const clock: Clock = { nowMs: () => now.ms, now: () => Math.floor(now.ms / 1000) };
    const service = new MakerLimitsService({} as Database, rows, market, clock, new LimitsHooks());
    return { service, now, calls };
  }

  it('counts a known quote until the second it expires, then not, without reading the quotes again', async () => {
    const { service, now, calls } = setUp();
    const openQuotes = async (ms: number) => {
      now.ms = ms;
      return (await service.view(1)).usage;
    };
    expect((await openQuotes(99_000)).open_quotes).toBe(2);
    expect((await openQuotes(99_900)).open_quotes).toBe(2);
    // 100 s: `a` (expires_at 100) is no longer live; the version is the same, so only the time drops it.
    const at100 = await openQuotes(100_000);
    expect(at100.open_quotes).toBe(1);
    expect(at100.open_notional).toBe('150');
    expect((await openQuotes(104_999)).open_quotes).toBe(1);
    expect((await openQuotes(105_000)).open_quotes).toBe(0);
    expect(calls).toEqual({ findWithVersion: 5, liveQuotes: 1, legsOf: 1 });
  });
});
