import { Http } from './clients';
import { createAccount, signInHttp } from './factories';
import { Environment, type TestApp } from './harness';

describe('GET /query/session: the caller as its token authenticates it', () => {
  let env: Environment;
  let app: TestApp;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  it("an account's session: its account, wallet, current roles and expiry", async () => {
    const { wallet, accountId } = await createAccount(app, ['taker', 'quoter']);
    const { http } = await signInHttp(app, wallet);
    const before = Math.floor(Date.now() / 1000);
    const res = await http.get('/query/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account_id: accountId, wallet: wallet.address, roles: ['taker', 'quoter'], scopes: [], expires_at: expect.any(Number) });
    expect(res.body.expires_at).toBeGreaterThan(before);
    // The roles it reads are the account's now, not the token's claim.
    expect((await new Http(app.url).admin().put(`/v1/admin/accounts/${accountId}/roles`, { roles: ['quoter'] })).status).toBe(200);
    expect((await http.get('/query/session')).body.roles).toEqual(['quoter']);
  });

  it('the admin token: no account, no wallet, no expiry', async () => {
    const res = await new Http(app.url).admin().get('/query/session');
    expect(res).toMatchObject({ status: 200, body: { account_id: null, wallet: null, roles: ['admin'], scopes: ['admin:*'], expires_at: null } });
  });

  it('no token is a 401, and a query parameter is a 400', async () => {
    expect(await new Http(app.url).get('/query/session')).toMatchObject({ status: 401, body: { error: expect.any(String) } });
    expect(await new Http(app.url).admin().get('/query/session?account_id=1')).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/account_id/) },
    });
  });
});
