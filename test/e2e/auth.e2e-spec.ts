import { JwtService } from '@nestjs/jwt';
import { Database } from '../../src/common/database/database';
import { loadVector } from '../vectors';
import { Http, RpcClient, TestWallet, freshIp } from './clients';
import { createAccount, signInHttp, signInWs } from './factories';
import { ADMIN_TOKEN, Environment, JWT_SECRET, type TestApp } from './harness';

describe('sign-in (HTTP and JSON-RPC)', () => {
  let env: Environment;
  let app: TestApp;
  let http: Http;

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    http = new Http(app.url);
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  const nonceFor = async (wallet: TestWallet, client = http.from(freshIp())) => {
    const res = await client.post('/v1/auth/nonce', { wallet: wallet.address });
    expect(res.status).toBe(200);
    return res.body as { wallet: string; nonce: string; expires_at: number; message: string };
  };
  const session = (wallet: TestWallet, message: string, signature = wallet.signBase58(message)) =>
    http.post('/v1/auth/session', { wallet: wallet.address, message, signature });

  it('signs in over HTTP: nonce, exact message, signature, token with account and roles', async () => {
    const { wallet, accountId } = await createAccount(app, ['taker', 'quoter']);
    const challenge = await nonceFor(wallet);
    expect(challenge.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(challenge.message).toBe(`Sign in to Legwork\n\nWallet: ${wallet.address}\nNonce: ${challenge.nonce}`);
    expect(challenge.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(295);
    const res = await session(wallet, challenge.message);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ wallet: wallet.address, account_id: accountId, roles: ['taker', 'quoter'], session_token: expect.any(String) });
    const claims = new JwtService({ secret: JWT_SECRET }).decode(res.body.session_token);
    expect(claims).toMatchObject({ sub: wallet.address, account_id: accountId, roles: ['taker', 'quoter'], iss: 'Legwork', aud: 'Legwork', scope: '' });
    expect(claims.exp - claims.iat).toBe(86400);
    expect(claims.jti).toEqual(expect.any(String));
  });

  it('signs in over JSON-RPC and the vector wallet signs exactly like the vector', async () => {
    const vector = loadVector('signin.json');
    const wallet = new TestWallet(Buffer.from(vector.wallet_seed_hex, 'hex'));
    expect(wallet.address).toBe(vector.wallet);
    const { client, result } = await signInWs(app, wallet);
    expect(result).toEqual({ wallet: vector.wallet, account_id: null, roles: [], session_token: expect.any(String) });
    expect(wallet.signBase58(vector.message)).toBe(vector.signature_base58);
    await client.close();
  });

  it('refuses a nonce used twice', async () => {
    const { wallet } = await createAccount(app);
    const challenge = await nonceFor(wallet);
    expect((await session(wallet, challenge.message)).status).toBe(200);
    const again = await session(wallet, challenge.message);
    expect(again).toEqual({ status: 401, body: { error: expect.stringMatching(/nonce/) } });
  });

  it('refuses an expired nonce', async () => {
    const { wallet } = await createAccount(app);
    const challenge = await nonceFor(wallet);
    // Time passes: the nonce's deadline is moved into the past, as 300 s would.
    await app.app.get(Database).exec(`UPDATE auth_nonces SET expires_at = expires_at - 301 WHERE nonce = $1`, [challenge.nonce]);
    expect((await session(wallet, challenge.message)).status).toBe(401);
  });

  it('keeps three live nonces per wallet: a fourth evicts the oldest', async () => {
    const wallet = new TestWallet();
    const client = http.from(freshIp());
    const challenges = [];
    for (let i = 0; i < 4; i++) challenges.push(await nonceFor(wallet, client));
    expect((await session(wallet, challenges[0].message)).status).toBe(401);
    for (const c of challenges.slice(1)) expect((await session(wallet, c.message)).status).toBe(200);
  });

  it('consumes the nonce on a failed attempt, whatever failed', async () => {
    const wallet = new TestWallet();
    const challenge = await nonceFor(wallet);
    const other = new TestWallet();
    const wrongKey = await session(wallet, challenge.message, other.signBase58(challenge.message));
    expect(wrongKey).toEqual({ status: 401, body: { error: 'signature does not verify' } });
    expect((await session(wallet, challenge.message)).status).toBe(401);
  });

  it('refuses a signature by another key, a wrong message, another service name, a malformed signature', async () => {
    const wallet = new TestWallet();
    const a = await nonceFor(wallet);
    expect((await session(wallet, a.message, new TestWallet().signBase58(a.message))).body.error).toMatch(/signature/);
    const b = await nonceFor(wallet);
    const altered = b.message.replace('Sign in to', 'Sign into');
    expect(await session(wallet, altered)).toEqual({ status: 401, body: { error: expect.stringMatching(/exact/) } });
    const c = await nonceFor(wallet);
    const otherService = c.message.replace('Legwork', 'Legwork2');
    expect((await session(wallet, otherService)).status).toBe(401);
    const d = await nonceFor(wallet);
    expect((await session(wallet, d.message, 'not-base58-0OIl')).status).toBe(401);
    const e = await nonceFor(wallet);
    // A signature over the message of another wallet's nonce.
    expect((await session(wallet, e.message.replace(wallet.address, new TestWallet().address))).status).toBe(401);
  });

  it('refuses small-order and malformed wallets at nonce and sign-in', async () => {
    for (const { text } of loadVector('signin.json').invalid_wallets) {
      const res = await http.from(freshIp()).post('/v1/auth/nonce', { wallet: text });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const smallOrder = '11111111111111111111111111111111';
    const res = await http.post('/v1/auth/session', {
      wallet: smallOrder,
      message: `Sign in to Legwork\n\nWallet: ${smallOrder}\nNonce: ${'0'.repeat(32)}`,
      signature: '1'.repeat(64),
    });
    expect(res.status).toBe(400);
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect((await client.call('public/get_nonce', { wallet: smallOrder })).error).toMatchObject({ code: -32602, data: { error: 'INVALID_PARAMS' } });
    await client.close();
  });

  it('limits nonces to 10 a minute per client address, HTTP and WebSocket together (429 / 1005)', async () => {
    const ip = freshIp();
    const wallet = new TestWallet();
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': ip });
    for (let i = 0; i < 5; i++) expect((await http.from(ip).post('/v1/auth/nonce', { wallet: wallet.address })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await client.call('public/get_nonce', { wallet: wallet.address })).result).toBeDefined();
    expect(await http.from(ip).post('/v1/auth/nonce', { wallet: wallet.address })).toEqual({ status: 429, body: { error: expect.any(String) } });
    expect((await client.call('public/get_nonce', { wallet: wallet.address })).error).toMatchObject({ code: 1005, data: { error: 'RATE_LIMITED' } });
    // Another address is not affected.
    expect((await http.from(freshIp()).post('/v1/auth/nonce', { wallet: wallet.address })).status).toBe(200);
    await client.close();
  });

  it('maps JSON-RPC sign-in failures to 1001, 1002 and 1004', async () => {
    const wallet = new TestWallet();
    const client = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    const c1 = await client.result('public/get_nonce', { wallet: wallet.address });
    const badSig = await client.call('public/auth', { wallet: wallet.address, message: c1.message, signature: new TestWallet().signBase58(c1.message) });
    expect(badSig.error).toMatchObject({ code: 1001, data: { error: 'AUTH_INVALID_SIGNATURE' } });
    const reused = await client.call('public/auth', { wallet: wallet.address, message: c1.message, signature: wallet.signBase58(c1.message) });
    expect(reused.error).toMatchObject({ code: 1002, data: { error: 'AUTH_INVALID_NONCE' } });
    const resume = await client.call('public/session_resume', { session_token: 'nope' });
    expect(resume.error).toMatchObject({ code: 1004, data: { error: 'SESSION_INVALID' } });
    const badParams = await client.call('public/auth', { wallet: wallet.address });
    expect(badParams.error).toMatchObject({ code: -32602 });
    await client.close();
  });

  it('resumes a session on a new connection with roles re-read from the database', async () => {
    const { wallet, accountId } = await createAccount(app, ['taker', 'quoter']);
    const { client, result } = await signInWs(app, wallet);
    await client.close();
    const put = await http.admin().put(`/v1/admin/accounts/${accountId}/roles`, { roles: ['taker'] });
    expect(put.status).toBe(200);
    const next = await RpcClient.connect(app.wsUrl);
    const resumed = await next.result('public/session_resume', { session_token: result.session_token });
    expect(resumed).toEqual({ wallet: wallet.address, account_id: accountId, roles: ['taker'], session_token: expect.any(String) });
    expect(new JwtService({ secret: JWT_SECRET }).decode(resumed.session_token).roles).toEqual(['taker']);
    await next.close();
  });
});

describe('session tokens on the HTTP query API', () => {
  let env: Environment;
  let app: TestApp;
  let http: Http;
  const jwt = new JwtService({ secret: JWT_SECRET });

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    http = new Http(app.url);
  });
  afterAll(async () => {
    await app.close();
    await env.destroy();
  });

  const claims = (over: Record<string, unknown> = {}) => ({ sub: new TestWallet().address, account_id: null, roles: [], scope: '', jti: 'j', ...over });
  const sign = (payload: object, options: Record<string, unknown> = {}) =>
    jwt.sign(payload, { algorithm: 'HS256', issuer: 'Legwork', audience: 'Legwork', expiresIn: 600, ...options });

  it('accepts a valid session of an account', async () => {
    const { wallet, accountId } = await createAccount(app);
    const { token } = await signInHttp(app, wallet);
    const res = await http.as(token).get('/query/positions');
    expect(res).toEqual({ status: 200, body: { rows: [] } });
    expect(accountId).toBeGreaterThan(0);
  });

  it('refuses a tampered token, alg none, an expired token, a wrong audience or issuer, another key', async () => {
    const { wallet } = await createAccount(app);
    const { token } = await signInHttp(app, wallet);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, account_id: payload.account_id + 1 })).toString('base64url')}.${s}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const expired = sign(claims({ account_id: payload.account_id }), { expiresIn: -10 });
    const wrongAud = sign(claims({ account_id: payload.account_id }), { audience: 'Other' });
    const wrongIss = sign(claims({ account_id: payload.account_id }), { issuer: 'Other' });
    const otherKey = new JwtService({ secret: 'x'.repeat(40) }).sign(claims({ account_id: payload.account_id }), {
      issuer: 'Legwork',
      audience: 'Legwork',
      expiresIn: 600,
    });
    const noExp = jwt.sign(claims({ account_id: payload.account_id }), { algorithm: 'HS256', issuer: 'Legwork', audience: 'Legwork' });
    for (const bad of [tampered, none, expired, wrongAud, wrongIss, otherKey, noExp, 'garbage']) {
      const res = await http.as(bad).get('/query/positions');
      expect(res).toEqual({ status: 401, body: { error: expect.any(String) } });
    }
    expect((await http.get('/query/positions')).status).toBe(401);
    expect((await http.request('GET', '/query/positions', undefined, { authorization: 'Basic abc' })).status).toBe(401);
  });

  it('gives an account-less wallet a session that reads nothing', async () => {
    const { token, accountId } = await signInHttp(app, new TestWallet());
    expect(accountId).toBeNull();
    expect((await http.as(token).get('/query/positions')).status).toBe(403);
    expect((await http.as(token).get('/query/balances')).status).toBe(403);
  });

  it('admin routes: no token 401, a trader token 403, admin token or admin role 200, scopes by command', async () => {
    const body = { wallet: new TestWallet().address, roles: [] };
    expect((await http.post('/v1/admin/accounts', body)).status).toBe(401);
    const { wallet } = await createAccount(app);
    const trader = await signInHttp(app, wallet);
    expect((await trader.http.post('/v1/admin/accounts', body)).status).toBe(403);
    expect((await http.as(ADMIN_TOKEN.slice(0, -1) + 'x').post('/v1/admin/accounts', body)).status).toBe(401);
    expect((await http.as(ADMIN_TOKEN).post('/v1/admin/accounts', body)).status).toBe(201);
    const adminRole = await createAccount(app, ['admin']);
    const admin = await signInHttp(app, adminRole.wallet);
    expect(new JwtService({ secret: JWT_SECRET }).decode(admin.token).scope).toBe('admin:*');
    expect((await admin.http.post('/v1/admin/accounts', { wallet: new TestWallet().address, roles: [] })).status).toBe(201);
    const scoped = sign(claims({ scope: 'admin:accounts' }));
    expect((await http.as(scoped).post('/v1/admin/accounts', { wallet: new TestWallet().address, roles: [] })).status).toBe(201);
    expect((await http.as(scoped).get(`/v1/admin/accounts/${adminRole.accountId}`)).status).toBe(403);
    const reader = sign(claims({ scope: 'admin:read' }));
    expect((await http.as(reader).get(`/v1/admin/accounts/${adminRole.accountId}`)).status).toBe(200);
    expect((await http.as(reader).post('/v1/admin/accounts', { wallet: new TestWallet().address, roles: [] })).status).toBe(403);
    const star = sign(claims({ scope: 'admin:*' }));
    expect((await http.as(star).get(`/v1/admin/accounts/${adminRole.accountId}`)).status).toBe(200);
  });
});
