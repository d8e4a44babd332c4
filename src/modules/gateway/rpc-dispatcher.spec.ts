import type { AppConfig } from '../../common/config/config';
import type { ViewVersions } from '../../common/broadcast/view-versions';
import { InMemoryRateLimiter } from '../../common/rate-limit/rate-limiter';
import type { AccountAccess } from '../accounts/account-access.service';
import type { MetricsService } from '../health/metrics.service';
import { RpcDispatcher } from './rpc-dispatcher';
import type { RegisteredMethod, RpcRegistry } from './rpc-registry';

/** docs/spec/design.md section 11: an instance whose views could not be confirmed for 30 s does not trade. */
describe('RpcDispatcher with unconfirmed views', () => {
  const ran: string[] = [];
  const method = (name: string): RegisteredMethod => ({
    name: name as RegisteredMethod['name'],
    access: { kind: 'account' },
    parse: (params) => params,
    handler: async () => {
      ran.push(name);
      return { ok: true };
    },
  });
  const registry = { get: (name: string) => method(name) } as unknown as RpcRegistry;
  const metrics = { rpcCall: () => undefined } as unknown as MetricsService;
  const config = { rfqEnabled: true, rfqRatePerSecond: 1000, rfqRateBurst: 1000 } as AppConfig;
  let stale: string[] = [];
  const views = { stale: () => stale } as unknown as ViewVersions;
  // The account's roles as they are now: here those of the token.
  const access = { current: (principal: unknown) => principal } as unknown as AccountAccess;
  const dispatcher = new RpcDispatcher(registry, new InMemoryRateLimiter(), metrics, access, config, views);
  const caller = { principal: { via: 'session' as const, wallet: 'w', accountId: 7, roles: [], scopes: [] }, clientIp: '10.0.0.1' } as never;

  beforeEach(() => {
    ran.length = 0;
    stale = [];
  });

  it('refuses rfq.* writes with RFQ_NOT_READY (retryable) and runs nothing', async () => {
    stale = ['instruments.changed'];
    for (const name of ['rfq.create', 'rfq.accept', 'rfq.maker.respond', 'rfq.maker.decline']) {
      const reply = await dispatcher.dispatch({ id: 1, method: name, params: {} }, caller);
      expect(reply.error?.data).toMatchObject({ error: 'RFQ_NOT_READY', retryable: true });
    }
    expect(ran).toEqual([]);
  });

  it('still serves rfq.* reads, and writes again once the views are confirmed', async () => {
    stale = ['market-data.changed'];
    for (const name of ['rfq.get', 'rfq.list', 'rfq.subscribe', 'rfq.maker.poll', 'rfq.maker.subscribe']) {
      expect((await dispatcher.dispatch({ id: 1, method: name, params: {} }, caller)).result).toEqual({ ok: true });
    }
    stale = [];
    expect((await dispatcher.dispatch({ id: 2, method: 'rfq.create', params: {} }, caller)).result).toEqual({ ok: true });
  });
});
