import { JwtService } from '@nestjs/jwt';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { createAccount, signInHttp, signInWs } from './factories';
import { logger } from '../../src/common/logging/logger';
import { Environment, JWT_SECRET, type TestApp } from './harness';

const claimsOf = (token: string) =>
  new JwtService({ secret: JWT_SECRET }).verify<{ iat: number; exp: number; auth_time: number; account_id: number | null }>(token);
const sleepUntil = (unixMs: number) => new Promise((r) => setTimeout(r, Math.max(0, unixMs - Date.now())));

/** `public/session_resume` on a new connection from a new client address (sign-ins are limited per address). */
async function resume(app: TestApp, token: string) {
  const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
  try {
    return await client.call('public/session_resume', { session_token: token });
  } finally {
    await client.close();
  }
}

/**
 * docs/spec/design.md section 16, "Sessions end": a session lives at most SESSION_MAX_SECONDS from
 * the wallet signature that began it, however often it is resumed; a token of a wallet without an
 * account never becomes a session of an account created later. Each sign-in is logged with its actor.
 */
let env: Environment;
let app: TestApp;
const lines: Array<Record<string, unknown>> = [];
let stdout: jest.SpyInstance;

beforeAll(async () => {
  // A 3 s token resumed every 1.2 s would live for ever if resume slid without bound: it ends 4 s after the signature.
  env = await Environment.create({ SESSION_TTL_SECONDS: '3', SESSION_MAX_SECONDS: '4', LOG_LEVEL: 'info' });
  stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  });
  app = await env.start();
}, 60_000);
afterAll(async () => {
  logger.setLevel('error');
  await app?.close();
  await env?.destroy();
  stdout.mockRestore();
});

describe('sessions end (design.md section 16): resume and its limit', () => {
  it('resume keeps auth_time and cannot pass SESSION_MAX_SECONDS: then 1004, 401, and the wallet signs again', async () => {
    const { wallet, accountId } = await createAccount(app, ['taker']);
    // Signed right after a second turns, so that the waits below are whole seconds from auth_time.
    await sleepUntil(Math.ceil(Date.now() / 1000) * 1000 + 50);
    const { client, result } = await signInWs(app, wallet);
    await client.close();
    const first = claimsOf(result.session_token);
    // At a sign-in auth_time is iat, the moment the signature was checked.
    const signedAt = first.iat;
    expect(Math.abs(signedAt - Date.now() / 1000)).toBeLessThan(2);

    // A bot that resumes before each token ends (every 1.2 s, a 3 s TTL).
    let token = result.session_token as string;
    const issued = [first];
    for (const at of [1.2, 2.4, 3.6]) {
      await sleepUntil((signedAt + at) * 1000);
      const resumed = await resume(app, token);
      expect(resumed.result).toMatchObject({ wallet: wallet.address, account_id: accountId, roles: ['taker'] });
      token = resumed.result.session_token;
      issued.push(claimsOf(token));
    }
    expect((await new Http(app.url).as(token).get('/query/balances')).status).toBe(200);

    // Past the signature + SESSION_MAX_SECONDS the last token, issued 1 s ago with a 3 s TTL, is refused.
    await sleepUntil((signedAt + 4) * 1000 + 200);
    const refused = await resume(app, token);
    expect(refused.error).toMatchObject({ code: 1004, data: { error: 'SESSION_INVALID' } });
    expect((await new Http(app.url).as(token).get('/query/balances')).status).toBe(401);
    // Every token kept auth_time and none ended after it + SESSION_MAX_SECONDS.
    for (const claims of issued) {
      expect(claims.auth_time).toBe(signedAt);
      expect(claims.exp).toBe(Math.min(claims.iat + 3, signedAt + 4));
    }

    // Signing with the wallet begins a new session.
    const again = await signInHttp(app, wallet);
    expect(claimsOf(again.token).auth_time).toBeGreaterThanOrEqual(signedAt + 4);
    expect((await again.http.get('/query/balances')).status).toBe(200);
  }, 30_000);
});

describe('sessions end (design.md section 16): account-less tokens and the sign-in log', () => {
  it('a token of a wallet without an account is not resumed into the account created and revoked since (1004)', async () => {
    const wallet = new TestWallet();
    // 1. The wallet signs in before its account exists.
    const early = await signInHttp(app, wallet);
    expect(early.accountId).toBeNull();
    expect(claimsOf(early.token).account_id).toBeNull();
    // Until an account exists, such a session resumes as what it is: no account.
    const stillNone = await resume(app, early.token);
    expect(stillNone.result).toMatchObject({ wallet: wallet.address, account_id: null, roles: [] });
    // 2. The account is created, 3. its sessions revoked.
    const { accountId } = await createAccount(app, ['taker', 'quoter'], wallet);
    const revoke = await new Http(app.url).admin().post(`/v1/admin/accounts/${accountId}/revoke-sessions`);
    expect(revoke.status).toBe(200);
    // 4. The old token and the one resumed from it give no session of the account.
    for (const token of [early.token, stillNone.result.session_token as string]) {
      const attempt = await resume(app, token);
      expect(attempt.error).toMatchObject({ code: 1004, data: { error: 'SESSION_INVALID' } });
      expect(attempt.result).toBeUndefined();
      expect((await new Http(app.url).as(token).get('/query/balances')).status).toBe(403);
    }
    // The wallet signs in again and has its account.
    const again = await signInHttp(app, wallet);
    expect(again.accountId).toBe(accountId);
    expect((await again.http.get('/query/balances')).status).toBe(200);
  });

  it('a token of a wallet without an account is not resumed into an account created later, revoked or not', async () => {
    const wallet = new TestWallet();
    const early = await signInHttp(app, wallet);
    await createAccount(app, ['taker'], wallet);
    const attempt = await resume(app, early.token);
    expect(attempt.error).toMatchObject({ code: 1004, data: { error: 'SESSION_INVALID' } });
  });

  it('logs each sign-in with its actor: account and wallet, by signature and by resume', async () => {
    const { wallet, accountId } = await createAccount(app, ['taker']);
    const signed = await signInHttp(app, wallet);
    await resume(app, signed.token);
    const anonymous = new TestWallet();
    await signInHttp(app, anonymous);
    await new Promise((r) => setTimeout(r, 50));
    const signIns = lines.filter((line) => line.msg === 'signed in');
    expect(signIns).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ via: 'signature', account_id: accountId, wallet: wallet.address, client_ip: expect.any(String) }),
        expect.objectContaining({ via: 'session_resume', account_id: accountId, wallet: wallet.address }),
        expect.objectContaining({ via: 'signature', account_id: null, wallet: anonymous.address }),
      ]),
    );
  });
});
