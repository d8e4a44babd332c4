import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { Http, TestWallet } from './clients';
import { createAccount, signInHttp } from './factories';
import { Environment, JWT_SECRET, type TestApp } from './harness';

/**
 * Who may use the admin routes (accounts, roles, reads, deposits and withdrawals): no token, a bad or
 * foreign token, a session without the admin role or scope, and each admin scope.
 */

/** A session token as the server would issue it (session.service.ts), with any claims. */
function mintToken(claims: { account_id?: number | null; roles?: string[]; scope?: string }, options: { secret?: string; expiresIn?: number } = {}): string {
  return new JwtService({ secret: options.secret ?? JWT_SECRET }).sign(
    { account_id: null, roles: [], scope: '', ...claims },
    { algorithm: 'HS256', subject: new TestWallet().address, issuer: 'Legwork', audience: 'Legwork', expiresIn: options.expiresIn ?? 600, jwtid: randomUUID() },
  );
}

let refSeq = 0;
const ref = (label = 'ref') => `${label}-${process.pid}-${++refSeq}-${randomUUID()}`;

describe('admin accounts, deposits and withdrawals', () => {
  let env: Environment;
  let app: TestApp;
  let admin: Http;
  let anon: Http;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    anon = new Http(app.url);
    admin = anon.admin();
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  const deposit = (accountId: number | string, amount: unknown, reference: unknown, as = admin) =>
    as.post(`/v1/admin/accounts/${accountId}/deposit`, { amount, reference });
  const withdraw = (accountId: number | string, amount: unknown, reference: unknown, as = admin) =>
    as.post(`/v1/admin/accounts/${accountId}/withdraw`, { amount, reference });

  describe('admin access', () => {
    const routes = (accountId: number) => [
      { command: 'accounts', call: (h: Http) => h.post('/v1/admin/accounts', { wallet: new TestWallet().address, roles: [] }) },
      { command: 'roles', call: (h: Http) => h.put(`/v1/admin/accounts/${accountId}/roles`, { roles: ['taker'] }) },
      { command: 'read', call: (h: Http) => h.get(`/v1/admin/accounts/${accountId}`) },
      { command: 'deposit', call: (h: Http) => deposit(accountId, '1', ref(), h) },
      { command: 'withdraw', call: (h: Http) => withdraw(accountId, '0.000001', ref(), h) },
    ];
    let accountId: number;

    beforeAll(async () => {
      ({ accountId } = await createAccount(app));
      expect((await deposit(accountId, '1000', ref())).status).toBe(200);
    });

    it('no token: 401 on every route', async () => {
      for (const route of routes(accountId)) {
        const res = await route.call(anon);
        expect([route.command, res.status]).toEqual([route.command, 401]);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('a malformed authorization header: 401', async () => {
      for (const header of ['Token abc', 'Bearer', 'Bearer ', 'Bearer a b', 'abc']) {
        const res = await anon.request('GET', `/v1/admin/accounts/${accountId}`, undefined, { authorization: header });
        expect([header, res.status]).toEqual([header, 401]);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('a tampered, foreign, expired or unknown token: 401', async () => {
      const good = mintToken({ roles: ['admin'], scope: 'admin:*' });
      const [header, , signature] = good.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(good.split('.')[1], 'base64url').toString()), scope: 'admin:* admin:read' }),
      ).toString('base64url');
      const tokens = [
        `${header}.${forged}.${signature}`,
        mintToken({ roles: ['admin'], scope: 'admin:*' }, { secret: 'another-secret-0123456789abcdef0123456789' }),
        mintToken({ roles: ['admin'], scope: 'admin:*' }, { expiresIn: -10 }),
        'e2e-admin-token-but-not-quite-the-right-one-0123',
      ];
      for (const token of tokens) {
        for (const route of routes(accountId)) {
          const res = await route.call(anon.as(token));
          expect([route.command, res.status]).toEqual([route.command, 401]);
        }
      }
    });

    it('a session without admin role or scope: 403', async () => {
      const { token } = await signInHttp(app, (await createAccount(app, ['taker', 'quoter'])).wallet);
      for (const route of routes(accountId)) {
        const res = await route.call(anon.as(token));
        expect([route.command, res.status]).toEqual([route.command, 403]);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('scope admin:<command> opens that command only; admin:read opens the GET', async () => {
      for (const scope of ['deposit', 'withdraw', 'accounts', 'roles', 'read']) {
        const token = mintToken({ scope: `admin:${scope}` });
        for (const route of routes(accountId)) {
          const res = await route.call(anon.as(token));
          const expected = route.command === scope ? [200, 201] : [403];
          expect([scope, route.command, expected.includes(res.status)]).toEqual([scope, route.command, true]);
        }
      }
    });

    it('a token with scope admin:deposit may deposit but not create accounts', async () => {
      const token = mintToken({ account_id: null, roles: [], scope: 'admin:deposit' });
      expect((await deposit(accountId, '3', ref(), anon.as(token))).status).toBe(200);
      expect((await anon.as(token).post('/v1/admin/accounts', { wallet: new TestWallet().address, roles: [] })).status).toBe(403);
    });

    it('role admin, scope admin:*, and the signed-in admin account may do everything', async () => {
      const adminAccount = await createAccount(app, ['admin']);
      const signedIn = await signInHttp(app, adminAccount.wallet);
      for (const token of [mintToken({ roles: ['admin'] }), mintToken({ scope: 'admin:*' }), signedIn.token]) {
        for (const route of routes(accountId)) {
          const res = await route.call(anon.as(token));
          expect([route.command, [200, 201].includes(res.status)]).toEqual([route.command, true]);
        }
      }
    });
  });
});
