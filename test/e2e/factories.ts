import { Http, RpcClient, TestWallet, freshIp } from './clients';
import type { TestApp } from './harness';

export interface SignedIn {
  wallet: TestWallet;
  accountId: number | null;
  token: string;
  http: Http;
}

/** Creates an account through the admin API (design.md section 3). */
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
  const session = await http.post('/v1/auth/session', { wallet: wallet.address, message: nonce.body.message, signature: wallet.signBase58(nonce.body.message) });
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
