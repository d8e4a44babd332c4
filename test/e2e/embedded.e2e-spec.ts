import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcClient } from './clients';
import { createAccount } from './factories';
import { ADMIN_TOKEN, JWT_SECRET, TestApp } from './harness';
import { Http } from './clients';

/**
 * The embedded default (no DATABASE_URL, no REDIS_URL), whatever the test run's own services:
 * the data survives a restart, and shutdown closes sockets with 1001.
 */
describe('embedded default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'legwork-embedded-'));
  const env = { DATA_DIR: dir, ADMIN_TOKEN, JWT_SECRET, LOG_LEVEL: 'error' };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its data across a restart and closes sockets with 1001 on shutdown', async () => {
    const first = await TestApp.start(env);
    expect(first.config.databaseUrl).toBeNull();
    expect(first.config.redisUrl).toBeNull();
    const health = await new Http(first.url).get('/health');
    expect(health).toEqual({ status: 200, body: { status: 'ok', service: 'Legwork', database: 'embedded', redis: 'in-process' } });
    const { wallet, accountId } = await createAccount(first, ['taker']);
    const client = await RpcClient.connect(first.wsUrl);
    await first.close();
    expect(await client.closed).toBe(1001);

    const second = await TestApp.start(env);
    const read = await new Http(second.url).admin().get(`/v1/admin/accounts/${accountId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ account_id: accountId, wallet: wallet.address, roles: ['taker'] });
    await second.close();
  }, 60_000);
});
