import assert from 'node:assert/strict';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import bs58 from 'bs58';
import { HttpError, Keypair, LegworkHttp, decodeWallet, parseHttpDecimal, verifySignature } from '../src/index';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: any;
}

async function readBody(req: IncomingMessage): Promise<any> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

/** The exchange's HTTP routes as these tests need them (sign-in, two queries, one admin command), every request recorded in `seen`. */
function exchangeRoutes(seen: Seen[], nonces: Map<string, string>): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/v1/auth/nonce' && body.wallet === 'limited') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end(JSON.stringify({ error: 'at most 10 nonce requests per minute' }));
      return;
    }
    if (path === '/v1/auth/nonce') {
      const nonce = '0123456789abcdef0123456789abcdef';
      nonces.set(body.wallet, nonce);
      return send(200, { wallet: body.wallet, nonce, expires_at: 0, message: `Sign in to Legwork\n\nWallet: ${body.wallet}\nNonce: ${nonce}` });
    }
    if (path === '/v1/auth/session') {
      const ok =
        body.message.endsWith(`Nonce: ${nonces.get(body.wallet)}`) &&
        verifySignature(decodeWallet(body.wallet), Buffer.from(body.message), bs58.decode(body.signature));
      return ok ? send(200, { wallet: body.wallet, account_id: 3, roles: ['taker'], session_token: 'jwt-3' }) : send(401, { error: 'bad signature' });
    }
    if (req.headers.authorization !== 'Bearer jwt-3' && req.headers.authorization !== 'Bearer admin-token') return send(401, { error: 'no or bad token' });
    if (path === '/query/balances')
      return send(200, {
        rows: [{ account_id: 3, currency: 'USDC', available: '12.50000000', locked: '0.00000000', total: '12.50000000', updated_at: 'now' }],
      });
    if (path === '/query/rfq-positions')
      return new URL(req.url!, 'http://x').searchParams.has('after') ? send(400, { error: 'after is not supported' }) : send(200, { rows: [] });
    if (path === '/v1/admin/accounts') return send(200, { account_id: 4, wallet: body.wallet, roles: body.roles, created_at: 'now' });
    return send(404, { error: 'unknown route' });
  };
}

describe('LegworkHttp against an in-test HTTP server', () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  const nonces = new Map<string, string>();

  before(async () => {
    const handle = exchangeRoutes(seen, nonces);
    server = createServer((req, res) => {
      // A failing handler drops the connection: the request under test then fails with it.
      handle(req, res).catch((error: unknown) => res.destroy(error instanceof Error ? error : new Error(String(error))));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('signs in (nonce, sign, session) and sends the token as bearer on queries', async () => {
    const http = new LegworkHttp(base);
    const keypair = Keypair.generate();
    const session = await http.signIn(keypair);
    assert.equal(session.session_token, 'jwt-3');
    assert.equal(http.token, 'jwt-3');
    const { rows } = await http.balances(3);
    assert.equal(parseHttpDecimal(rows[0].available), 12_500_000n);
    const last = seen[seen.length - 1];
    assert.equal(last.url, '/query/balances?account_id=3');
    assert.equal(last.authorization, 'Bearer jwt-3');
    await http.rfqPositions({ status: 'all', limit: 5 });
    assert.equal(seen[seen.length - 1].url, '/query/rfq-positions?limit=5&status=all');
  });

  it('throws HttpError with the status and the error text', async () => {
    const http = new LegworkHttp(base, 'wrong');
    await assert.rejects(http.balances(), (e: unknown) => e instanceof HttpError && e.status === 401 && e.error === 'no or bad token');
    await assert.rejects(http.withToken('jwt-3').get('/query/rfq-positions', { after: '1' }), (e: unknown) => e instanceof HttpError && e.status === 400);
  });

  it("a 429's Retry-After is the HttpError's retryAfterMs", async () => {
    const error = await new LegworkHttp(base).nonce('limited').catch((e: unknown) => e);
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterMs, 7000);
  });

  it('sends admin commands with the admin token', async () => {
    const admin = new LegworkHttp(base).withToken('admin-token');
    const account = await admin.createAccount({ wallet: Keypair.generate().wallet, roles: ['taker'] });
    assert.equal(account.account_id, 4);
    const last = seen[seen.length - 1];
    assert.equal(last.method, 'POST');
    assert.equal(last.authorization, 'Bearer admin-token');
    assert.deepEqual(last.body.roles, ['taker']);
  });
});
