import { type MethodName, methodDeclaration } from '@legwork/protocol';
import type { AppConfig } from '../../common/config/config';
import type { ViewVersions } from '../../common/broadcast/view-versions';
import { PublicRateLimit, RfqRateLimit } from '../../common/rate-limit/public-rate-limit';
import { InMemoryRateLimiter } from '../../common/rate-limit/rate-limiter';
import type { AccountAccessService } from '../accounts/account-access.service';
import type { MetricsService } from '../health/metrics.service';
import { RfqAdmission } from './rfq-admission';
import { RpcDispatcher } from './rpc-dispatcher';
import type { RegisteredMethod, RpcRegistry } from './rpc-registry';

/** docs/spec/design.md section 11: an instance whose views could not be confirmed for 30 s does not trade. */
describe('RpcDispatcher with unconfirmed views', () => {
  const ran: string[] = [];
  const method = (name: string): RegisteredMethod => ({
    name: name as MethodName,
    declaration: methodDeclaration(name as MethodName),
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
  const access = { current: (principal: unknown) => principal } as unknown as AccountAccessService;
  const limiter = new InMemoryRateLimiter();
  const dispatcher = new RpcDispatcher(
    registry,
    metrics,
    access,
    config,
    new PublicRateLimit(limiter, 1000, 1000),
    new RfqAdmission(config, views, PublicRateLimit.forRfq(limiter, 1000, 1000), PublicRateLimit.forQueries(limiter, 1000, 1000), null),
  );
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

/** docs/spec/design.md section 16: the public bucket, and refusals that say when to retry. */
describe('RpcDispatcher limits', () => {
  const ran: string[] = [];
  const method = (name: string): RegisteredMethod => ({
    name: name as MethodName,
    declaration: methodDeclaration(name as MethodName),
    access: methodDeclaration(name as MethodName).dialect === 'rfq' ? { kind: 'account' } : { kind: 'public' },
    parse: (params) => params,
    handler: async () => {
      ran.push(name);
      return { ok: true };
    },
  });
  const registry = { get: (name: string) => method(name) } as unknown as RpcRegistry;
  const metrics = { rpcCall: () => undefined } as unknown as MetricsService;
  const config = { rfqEnabled: true, rfqRatePerSecond: 2, rfqRateBurst: 2, publicRatePerSecond: 20, publicRateBurst: 3 } as AppConfig;
  const views = { stale: () => [] } as unknown as ViewVersions;
  const access = { current: (principal: unknown) => principal } as unknown as AccountAccessService;
  const now = 1_000_000;
  const limiter = new InMemoryRateLimiter(() => now);
  const dispatcher = new RpcDispatcher(
    registry,
    metrics,
    access,
    config,
    new PublicRateLimit(limiter, 20, 3, () => now),
    new RfqAdmission(
      config,
      views,
      new RfqRateLimit(limiter, config.rfqRatePerSecond, config.rfqRateBurst, () => now, 'rfq'),
      PublicRateLimit.forQueries(limiter, 1000, 1000),
      null,
    ),
  );
  const caller = (ip: string) =>
    ({ principal: { via: 'session' as const, wallet: 'w', accountId: 9, roles: [], scopes: [] }, clientIp: ip, connectionId: 'c1' }) as never;

  it('public reads share the IP bucket: the one over the burst is 1005 with retry_after_ms, sign-in methods are not counted', async () => {
    const from = caller('10.0.0.2');
    for (let i = 0; i < 3; i++) expect((await dispatcher.dispatch({ id: i, method: 'public/get_market_config', params: {} }, from)).result).toBeDefined();
    const refused = await dispatcher.dispatch({ id: 9, method: 'public/get_instruments', params: {} }, from);
    expect(refused.error).toEqual({
      code: 1005,
      message: 'at most 20 public requests per second from one address (burst 3)',
      data: { error: 'RATE_LIMITED', message: 'at most 20 public requests per second from one address (burst 3)', retry_after_ms: 50 },
    });
    expect((await dispatcher.dispatch({ id: 10, method: 'public/get_nonce', params: {} }, from)).result).toBeDefined();
    expect((await dispatcher.dispatch({ id: 11, method: 'public/get_market_config', params: {} }, caller('10.0.0.3'))).result).toBeDefined();
  });

  it('RFQ_RATE_LIMITED carries retry_after_ms', async () => {
    const from = caller('10.0.0.4');
    for (let i = 0; i < 2; i++) expect((await dispatcher.dispatch({ id: i, method: 'rfq.list', params: {} }, from)).result).toBeDefined();
    const refused = await dispatcher.dispatch({ id: 3, method: 'rfq.list', params: {} }, from);
    expect(refused.error?.data).toMatchObject({ error: 'RFQ_RATE_LIMITED', retryable: true, retry_after_ms: 500 });
  });
});
