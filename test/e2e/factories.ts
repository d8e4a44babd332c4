import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { parseRfqUnsigned } from '@legwork/protocol';
import { formatSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { JWT_SECRET, type TestApp } from './harness';

export interface SignedIn {
  wallet: TestWallet;
  accountId: number | null;
  token: string;
  http: Http;
}

/** Creates an account through the admin API (docs/spec/design.md section 3). */
export async function createAccount(app: TestApp, roles: string[] = ['taker'], wallet = new TestWallet()): Promise<{ wallet: TestWallet; accountId: number }> {
  const res = await new Http(app.url).admin().post('/v1/admin/accounts', { wallet: wallet.address, roles });
  if (res.status !== 201 && res.status !== 200) throw new Error(`create account: ${res.status} ${JSON.stringify(res.body)}`);
  return { wallet, accountId: res.body.account_id };
}

/** Signs a wallet in over HTTP (nonce, sign, session) from a fresh client address. */
export async function signInHttp(app: TestApp, wallet: TestWallet): Promise<SignedIn> {
  const http = new Http(app.url).from(freshIp());
  const nonce = await http.post('/v1/auth/nonce', { wallet: wallet.address });
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${JSON.stringify(nonce.body)}`);
  const session = await http.post('/v1/auth/session', {
    wallet: wallet.address,
    message: nonce.body.message,
    signature: wallet.signBase58(nonce.body.message),
  });
  if (session.status !== 200) throw new Error(`session: ${session.status} ${JSON.stringify(session.body)}`);
  return { wallet, accountId: session.body.account_id, token: session.body.session_token, http: new Http(app.url).as(session.body.session_token) };
}

/** Connects to /client and signs in over JSON-RPC. */
export async function signInWs(app: TestApp, wallet: TestWallet): Promise<{ client: RpcClient; result: any }> {
  const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
  const challenge = await client.result('public/get_nonce', { wallet: wallet.address });
  const result = await client.result('public/auth', { wallet: wallet.address, message: challenge.message, signature: wallet.signBase58(challenge.message) });
  return { client, result };
}

/** An account with roles, signed in over HTTP and WebSocket. */
export async function trader(app: TestApp, roles: string[] = ['taker']) {
  const { wallet, accountId } = await createAccount(app, roles);
  const http = await signInHttp(app, wallet);
  const { client } = await signInWs(app, wallet);
  return { wallet, accountId, token: http.token, http: http.http, client };
}

export const DAY = 86_400;

/** 08:00 UTC, `days` UTC dates from today (an expiration for create-instruments). */
export const expirationIn = (days: number) => (Math.floor(Date.now() / 1000 / DAY) + days) * DAY + 8 * 3600;

/** The symbol of listed terms (docs/spec/design.md section 2). */
export const symbolOf = (asset: string, expiry: number, strike: string, kind: 'call' | 'put') =>
  formatSymbol({ asset, expiry, strike: parseRfqUnsigned(strike), kind });

/** A session token as the server issues it (session.service.ts), with any roles and scope. */
export function sessionToken(claims: { account_id?: number | null; roles?: string[]; scope?: string }): string {
  return new JwtService({ secret: JWT_SECRET }).sign(
    { account_id: null, roles: [], scope: '', ...claims },
    { algorithm: 'HS256', subject: new TestWallet().address, issuer: 'Legwork', audience: 'Legwork', expiresIn: 600, jwtid: randomUUID() },
  );
}

/** Waits until `check()` holds (polling every 20 ms), or throws. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
