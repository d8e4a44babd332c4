import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { Http, TestWallet } from './clients';
import { createAccount, signInHttp } from './factories';
import { Environment, JWT_SECRET, type TestApp } from './harness';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A session token as the server would issue it (session.service.ts), with any claims. */
function mintToken(claims: { account_id?: number | null; roles?: string[]; scope?: string }): string {
  return new JwtService({ secret: JWT_SECRET }).sign(
    { account_id: null, roles: [], scope: '', ...claims },
    { algorithm: 'HS256', subject: new TestWallet().address, issuer: 'Legwork', audience: 'Legwork', expiresIn: 600, jwtid: randomUUID() },
  );
}

describe('HTTP query API: balances and positions', () => {
  let env: Environment;
  let app: TestApp;
  let anon: Http;
  let admin: Http;
  /** A signed-in taker with 25.5 USDC, and another account with nothing deposited. */
  let alice: { accountId: number; http: Http; createdAt: string };
  let bob: { accountId: number; http: Http; createdAt: string };

  const signedInAccount = async (roles: string[] = ['taker']) => {
    const { wallet, accountId } = await createAccount(app, roles);
    const { http } = await signInHttp(app, wallet);
    const createdAt = (await admin.get(`/v1/admin/accounts/${accountId}`)).body.created_at as string;
    return { accountId, http, createdAt };
  };

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    anon = new Http(app.url);
    admin = anon.admin();
    alice = await signedInAccount();
    bob = await signedInAccount(['quoter']);
    const res = await admin.post(`/v1/admin/accounts/${alice.accountId}/deposit`, { amount: '25.5', reference: `query-${randomUUID()}` });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  const aliceRow = () => ({
    account_id: alice.accountId,
    currency: 'USDC',
    available: '25.50000000',
    locked: '0.00000000',
    total: '25.50000000',
    updated_at: expect.stringMatching(ISO_UTC),
  });

  describe('GET /query/balances', () => {
    it("reads the token's own account, named or not", async () => {
      for (const path of ['/query/balances', `/query/balances?account_id=${alice.accountId}`]) {
        const res = await alice.http.get(path);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ rows: [aliceRow()] });
      }
    });

    it('an account never deposited to reads a zero row as of its creation', async () => {
      const res = await bob.http.get('/query/balances');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        rows: [{ account_id: bob.accountId, currency: 'USDC', available: '0.00000000', locked: '0.00000000', total: '0.00000000', updated_at: bob.createdAt }],
      });
    });

    it('another account: 403', async () => {
      for (const res of [
        await alice.http.get(`/query/balances?account_id=${bob.accountId}`),
        await bob.http.get(`/query/balances?account_id=${alice.accountId}`),
        await alice.http.get('/query/balances?account_id=0'),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });

    it('a token whose only admin scope is not admin:read may not read another account: 403', async () => {
      const res = await anon.as(mintToken({ account_id: bob.accountId, scope: 'admin:deposit' })).get(`/query/balances?account_id=${alice.accountId}`);
      expect(res.status).toBe(403);
    });

    it('an admin reader reads any account: admin token, role admin, scope admin:* or admin:read', async () => {
      const adminAccount = await signedInAccount(['admin']);
      const readers = [
        admin,
        adminAccount.http,
        anon.as(mintToken({ roles: ['admin'] })),
        anon.as(mintToken({ scope: 'admin:*' })),
        anon.as(mintToken({ scope: 'admin:read' })),
      ];
      for (const reader of readers) {
        const res = await reader.get(`/query/balances?account_id=${alice.accountId}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ rows: [aliceRow()] });
      }
      // With an account of its own, an admin reads it when it names none.
      expect((await adminAccount.http.get('/query/balances')).body.rows[0].account_id).toBe(adminAccount.accountId);
    });

    it('an admin reader without an account must name one: 400', async () => {
      for (const reader of [admin, anon.as(mintToken({ scope: 'admin:read' }))]) {
        const res = await reader.get('/query/balances');
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'account_id is required' });
      }
    });

    it('an admin reader naming an account that does not exist reads no row', async () => {
      expect(await admin.get('/query/balances?account_id=987654321')).toMatchObject({ status: 200, body: { rows: [] } });
      expect(await admin.get('/query/balances?account_id=0')).toMatchObject({ status: 200, body: { rows: [] } });
    });

    it('the fee account reads as any account', async () => {
      const res = await admin.get('/query/balances?account_id=1');
      expect(res.status).toBe(200);
      expect(res.body.rows).toEqual([expect.objectContaining({ account_id: 1, currency: 'USDC' })]);
    });
  });

  describe('both routes', () => {
    const paths = ['/query/balances', '/query/positions'];

    it('GET /query/positions: no order book, no rows', async () => {
      expect(await alice.http.get('/query/positions')).toEqual({ status: 200, body: { rows: [] } });
      expect(await alice.http.get(`/query/positions?account_id=${alice.accountId}`)).toEqual({ status: 200, body: { rows: [] } });
      expect(await admin.get(`/query/positions?account_id=${bob.accountId}`)).toEqual({ status: 200, body: { rows: [] } });
      expect((await alice.http.get(`/query/positions?account_id=${bob.accountId}`)).status).toBe(403);
      expect((await admin.get('/query/positions')).status).toBe(400);
    });

    it('a wallet signed in without an account: 403, named account or not', async () => {
      const signedIn = await signInHttp(app, new TestWallet());
      expect(signedIn.accountId).toBeNull();
      for (const path of paths) {
        for (const query of ['', `?account_id=${alice.accountId}`]) {
          const res = await signedIn.http.get(path + query);
          expect([path + query, res.status]).toEqual([path + query, 403]);
          expect(res.body).toEqual({ error: expect.any(String) });
        }
      }
    });

    it('no token, a bad token or a malformed header: 401', async () => {
      for (const path of paths) {
        for (const client of [anon, anon.as('not-a-jwt'), anon.as(mintToken({ account_id: alice.accountId }) + 'x')]) {
          const res = await client.get(path);
          expect(res.status).toBe(401);
          expect(res.body).toEqual({ error: expect.any(String) });
        }
        expect((await anon.request('GET', path, undefined, { authorization: 'Basic abc' })).status).toBe(401);
      }
    });

    it('an unknown query parameter: 400', async () => {
      for (const path of paths) {
        for (const query of ['?foo=1', '?after=1', `?account_id=${alice.accountId}&limit=10`, '?accountId=1']) {
          const res = await alice.http.get(path + query);
          expect([path + query, res.status]).toEqual([path + query, 400]);
          expect(res.body).toEqual({ error: expect.any(String) });
        }
      }
    });

    it('a bad account_id: 400', async () => {
      for (const path of paths) {
        for (const value of ['-1', 'abc', '1.5', '', '01', '1e3', '0x10', '%201', '99999999999999999999', '9007199254740993']) {
          for (const client of [alice.http, admin]) {
            const res = await client.get(`${path}?account_id=${value}`);
            expect([path, value, res.status]).toEqual([path, value, 400]);
            expect(res.body).toEqual({ error: expect.stringMatching(/account_id/) });
          }
        }
        const twice = await admin.get(`${path}?account_id=1&account_id=2`);
        expect(twice.status).toBe(400);
      }
    });
  });
});
