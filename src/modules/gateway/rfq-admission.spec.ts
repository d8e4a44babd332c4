import { type MethodName, methodDeclaration } from '@legwork/protocol';
import type Redis from 'ioredis';
import type { ViewVersions } from '../../common/broadcast/view-versions';
import type { AppConfig } from '../../common/config/config';
import { RfqError } from '../../common/errors/app-error';
import { PublicRateLimit } from '../../common/rate-limit/public-rate-limit';
import { InMemoryRateLimiter } from '../../common/rate-limit/rate-limiter';
import { RfqAdmission } from './rfq-admission';
import type { RegisteredMethod } from './rpc-registry';

/**
 * docs/spec/design.md 11: Redis down, every rfq.* call of an account is RFQ_NOT_READY. The account's
 * bucket is leased (a token here needs no Redis), so the admission says it itself.
 */
describe('RfqAdmission without Redis', () => {
  const config = { rfqEnabled: true, rfqRatePerSecond: 1000, rfqRateBurst: 1000 } as AppConfig;
  const views = { stale: () => [] } as unknown as ViewVersions;
  const limiter = new InMemoryRateLimiter();
  const admission = (redis: Redis | null) =>
    new RfqAdmission(config, views, PublicRateLimit.forRfq(limiter, 1000, 1000), PublicRateLimit.forQueries(limiter, 1000, 1000), redis);
  const method = (name: string): RegisteredMethod =>
    ({ name, declaration: methodDeclaration(name as MethodName), access: { kind: 'account' } }) as unknown as RegisteredMethod;
  const principal = { via: 'session' as const, wallet: 'w', accountId: 7, roles: [], scopes: [] } as never;

  it('refuses reads and writes with RFQ_NOT_READY redis_unavailable (retryable) while the connection is not ready', async () => {
    const down = admission({ status: 'reconnecting' } as Redis);
    for (const name of ['rfq.create', 'rfq.list', 'rfq.maker.get_limits']) {
      const refusal = await down.admit(method(name), principal).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(RfqError);
      expect(refusal).toMatchObject({ code: 'RFQ_NOT_READY', reason: 'redis_unavailable' });
    }
  });

  it('admits once the connection is ready, and always with no Redis configured (the embedded default)', async () => {
    await expect(admission({ status: 'ready' } as Redis).admit(method('rfq.create'), principal)).resolves.toBeUndefined();
    await expect(admission(null).admit(method('rfq.create'), principal)).resolves.toBeUndefined();
  });
});
