import { createHash } from 'node:crypto';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Database } from '../../src/common/database/database';
import { AuditTrail } from '../../src/modules/audit/audit-trail.interceptor';
import { verifyAuditChain } from '../../src/modules/audit/domain/audit-chain';
import { ACCESS, type Access } from '../../src/common/access/access';
import { ROUTES, ROUTE_NAMES } from '@legwork/protocol';
import { Http, TestWallet, freshIp } from './clients';
import { createAccount, signInHttp } from './factories';
import { Environment, type TestApp } from './harness';
import { sessionToken } from './rfq-support';

/**
 * docs/spec/design.md section 16, "every admin action is attributable", checked as a reviewer who
 * does not trust the server would: each admin command (admin token or admin session) leaves a row
 * naming its actor, address and outcome, failures included; the test recomputes every hash with its
 * own canonical JSON and node:crypto; a row changed in the database is found; concurrent commands
 * (on two instances when PostgreSQL and Redis are configured) leave one unbroken chain.
 */
const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const ZERO = '0'.repeat(64);

/** RFC 8785 for strings, integers, booleans, null, objects and arrays, written here apart from the server's. */
const canonical = (v: any): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : typeof v === 'object'
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
            .join(',')}}`
        : JSON.stringify(v);
const hashOf = ({ hash: _hash, ...row }: any): string =>
  createHash('sha256')
    .update(Buffer.concat([Buffer.from(row.prev_hash, 'hex'), Buffer.from(canonical(row), 'utf8')]))
    .digest('hex');

let env: Environment;
let a: TestApp;
/** The second instance (the first again without a shared database and Redis). */
let b: TestApp;
let sql: (text: string, params?: unknown[]) => Promise<any[]>;

beforeAll(async () => {
  env = await Environment.create();
  a = await env.start();
  b = shared ? await env.start() : a;
  sql = (text, params = []) => a.app.get(Database).rows<any>(text, params);
});
afterAll(async () => {
  if (b !== a) await b?.close();
  await a?.close();
  await env?.destroy();
});

/** Every row, oldest first, read page by page through the cursor. */
async function allRows(limit = 7): Promise<{ rows: any[]; head: { audit_seq: number; hash: string } }> {
  const admin = new Http(a.url).admin();
  const rows: any[] = [];
  let head: any;
  for (let after: string | undefined; ;) {
    const res = await admin.get(`/v1/admin/audit?limit=${limit}${after ? `&after=${after}` : ''}`);
    expect(res.status).toBe(200);
    head ??= res.body.head;
    rows.push(...res.body.rows);
    after = res.body.next_cursor;
    if (!after) break;
  }
  return { rows: rows.reverse(), head };
}
const latest = async (n = 1) => (await new Http(a.url).admin().get(`/v1/admin/audit?limit=${n}`)).body.rows as any[];

describe('the admin audit log (design.md section 16): a command through the admin token', () => {
  it('records a command through the admin token with its actor, client address, target, params and status', async () => {
    const ip = freshIp();
    const wallet = new TestWallet();
    const created = await new Http(a.url)
      .admin()
      .from(ip)
      .post('/v1/admin/accounts', { wallet: wallet.address, roles: ['taker'] });
    expect(created.status).toBe(201);
    const deposit = await new Http(a.url)
      .admin()
      .from(ip)
      .post(`/v1/admin/accounts/${created.body.account_id}/deposit`, { amount: '12.5', reference: 'audit-1' });
    expect(deposit.status).toBe(200);
    const [depositRow, createRow] = await latest(2);
    expect(createRow).toMatchObject({
      actor: { via: 'admin_token', account_id: null, wallet: null, jti: null },
      client_ip: ip,
      action: 'accounts',
      target: null,
      params: { wallet: wallet.address, roles: ['taker'] },
      status: 201,
    });
    expect(depositRow).toMatchObject({
      audit_seq: createRow.audit_seq + 1,
      prev_hash: createRow.hash,
      action: 'deposit',
      target: { account_id: String(created.body.account_id) },
      params: { amount: '12.5', reference: 'audit-1' },
      status: 200,
    });
    expect(Math.abs(depositRow.at - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('the admin audit log (design.md section 16): a declared admin command', () => {
  it('records revoke-sessions as the interceptor records a command: its outcome, failures included, not a refused caller', async () => {
    const ip = freshIp();
    const target = await createAccount(a, ['taker']);
    const admin = new Http(a.url).admin().from(ip);
    expect((await admin.post(`/v1/admin/accounts/${target.accountId}/revoke-sessions`, { note: 'x' })).status).toBe(200);
    expect((await admin.post('/v1/admin/accounts/999999/revoke-sessions')).status).toBe(404);
    expect((await admin.post('/v1/admin/accounts/07/revoke-sessions')).status).toBe(400);
    const before = (await latest())[0].audit_seq;
    expect((await new Http(a.url).post(`/v1/admin/accounts/${target.accountId}/revoke-sessions`)).status).toBe(401);
    const [bad, missing, done] = await latest(3);
    expect(bad.audit_seq).toBe(before);
    expect(done).toMatchObject({
      actor: { via: 'admin_token', account_id: null, wallet: null, jti: null },
      client_ip: ip,
      action: 'revoke-sessions',
      target: { account_id: String(target.accountId) },
      params: { note: 'x' },
      status: 200,
    });
    expect(missing).toMatchObject({ action: 'revoke-sessions', target: { account_id: '999999' }, params: {}, status: 404 });
    expect(bad).toMatchObject({ action: 'revoke-sessions', target: { account_id: '07' }, status: 400 });
  });
});

describe('the admin audit log (design.md section 16): sessions and failed commands', () => {
  it('records a command through an admin session with the account, wallet and jti of its token', async () => {
    const { wallet, accountId } = await createAccount(a, ['admin']);
    const session = await signInHttp(b, wallet);
    const jti = JSON.parse(Buffer.from(session.token.split('.')[1], 'base64url').toString()).jti;
    expect(typeof jti).toBe('string');
    const ip = freshIp();
    const target = await createAccount(a, ['taker']);
    const res = await new Http(b.url)
      .as(session.token)
      .from(ip)
      .put(`/v1/admin/accounts/${target.accountId}/roles`, { roles: ['taker', 'quoter'] });
    expect(res.status).toBe(200);
    const [row] = await latest();
    expect(row).toMatchObject({
      actor: { via: 'session', account_id: accountId, wallet: wallet.address, jti },
      client_ip: ip,
      action: 'roles',
      target: { account_id: String(target.accountId) },
      params: { roles: ['taker', 'quoter'] },
      status: 200,
    });
    // The account filter finds the session's commands only.
    const mine = (await new Http(a.url).admin().get(`/v1/admin/audit?account_id=${accountId}`)).body.rows;
    expect(mine.map((r: any) => r.audit_seq)).toEqual([row.audit_seq]);
  });

  it('records failed commands with their status, signatures and secrets dropped; unauthenticated and forbidden calls leave no row', async () => {
    const admin = new Http(a.url).admin();
    expect((await admin.post('/v1/admin/accounts/999999/deposit', { amount: '1', reference: 'nobody' })).status).toBe(404);
    const [missing] = await latest();
    expect(missing).toMatchObject({ action: 'deposit', target: { account_id: '999999' }, status: 404 });
    // Refused by validation (an unknown field): recorded as sent, with the signature and the token dropped.
    const bad = await admin.post('/v1/admin/market-data', { asset: 'SOL', index_price: '150', signature: 'c2lnbmF0dXJl', admin_token: 'hunter2' });
    expect(bad.status).toBe(400);
    const [refused] = await latest();
    expect(refused).toMatchObject({
      action: 'market-data',
      status: 400,
      params: { asset: 'SOL', index_price: '150', signature: '[redacted]', admin_token: '[redacted]' },
    });
    expect(JSON.stringify(refused)).not.toMatch(/c2lnbmF0dXJl|hunter2/);
    const before = (await latest())[0].audit_seq;
    const taker = await createAccount(a, ['taker']);
    const after = (await latest())[0].audit_seq; // the create above is a command
    expect(after).toBe(before + 1);
    expect((await new Http(a.url).post('/v1/admin/market-data', { asset: 'SOL', index_price: '1' })).status).toBe(401);
    expect((await new Http(a.url).as('not-a-token').post('/v1/admin/market-data', { asset: 'SOL', index_price: '1' })).status).toBe(401);
    const takerToken = sessionToken(taker.wallet.address, taker.accountId, ['taker']);
    expect((await new Http(a.url).as(takerToken).post('/v1/admin/market-data', { asset: 'SOL', index_price: '1' })).status).toBe(403);
    expect((await new Http(a.url).as(takerToken).get('/v1/admin/audit')).status).toBe(403);
    expect((await new Http(a.url).get('/v1/admin/audit')).status).toBe(401);
    expect((await latest())[0].audit_seq).toBe(after);
  });
});

describe('the admin audit log (design.md section 16): the chain', () => {
  it('every hash recomputed here from the rows alone links the chain from 64 zeros to the head', async () => {
    const { rows, head } = await allRows();
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.map((r) => r.audit_seq)).toEqual(rows.map((_, i) => i + 1));
    let prev = ZERO;
    for (const row of rows) {
      expect([row.audit_seq, row.prev_hash]).toEqual([row.audit_seq, prev]);
      expect([row.audit_seq, hashOf(row)]).toEqual([row.audit_seq, row.hash]);
      prev = row.hash;
    }
    expect(head).toMatchObject({ audit_seq: rows.length, hash: prev });
    expect(verifyAuditChain(rows, { head })).toMatchObject({ ok: true, checked: rows.length });
  });

  it('a row changed in the database (status, actor) is found: the verifier names it, and so does the recomputed hash', async () => {
    const { rows } = await allRows(200);
    const victim = rows[2];
    const [saved] = await sql(`SELECT status, actor_wallet FROM audit_log WHERE audit_seq = $1`, [victim.audit_seq]);
    await sql(`UPDATE audit_log SET status = 200, actor_wallet = 'someone-else' WHERE audit_seq = $1`, [victim.audit_seq]);
    try {
      const tampered = (await allRows(200)).rows;
      expect(verifyAuditChain(tampered)).toEqual({ ok: false, broken_at: victim.audit_seq, reason: 'hash is not the hash of the row' });
      expect(hashOf(tampered[2])).not.toBe(tampered[2].hash);
      // Rewriting its hash too only moves the break to the next link.
      await sql(`UPDATE audit_log SET hash = $2 WHERE audit_seq = $1`, [victim.audit_seq, hashOf(tampered[2])]);
      expect(verifyAuditChain((await allRows(200)).rows)).toMatchObject({ ok: false, broken_at: victim.audit_seq + 1 });
    } finally {
      await sql(`UPDATE audit_log SET status = $2, actor_wallet = $3, hash = $4 WHERE audit_seq = $1`, [
        victim.audit_seq,
        saved.status,
        saved.actor_wallet,
        victim.hash,
      ]);
    }
    expect(verifyAuditChain((await allRows(200)).rows)).toMatchObject({ ok: true });
  });

  it(`${shared ? 'two instances' : 'one instance'}: 24 concurrent admin commands leave 24 rows on one unbroken chain`, async () => {
    const start = (await latest())[0].audit_seq;
    const { accountId } = await createAccount(a, ['taker']);
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        new Http((i % 2 ? b : a).url)
          .admin()
          .from(freshIp())
          .post(`/v1/admin/accounts/${accountId}/deposit`, { amount: '1', reference: `concurrent-${i}` }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const { rows, head } = await allRows(200);
    const added = rows.filter((r) => r.audit_seq > start + 1);
    expect(added).toHaveLength(24);
    expect(new Set(added.map((r) => r.params.reference)).size).toBe(24);
    expect(verifyAuditChain(rows, { head })).toMatchObject({ ok: true, checked: rows.length });
    expect(rows.every((r) => hashOf(r) === r.hash)).toBe(true);
  });
});

describe('the admin audit log (design.md section 16): refusals and pages', () => {
  it('a command whose record cannot be written is never answered as done (the chain refuses a second row at a taken seq)', async () => {
    const { accountId } = await createAccount(a, ['taker']);
    const head = (await latest())[0];
    // The head one row back: the next append would take a seq (and link to a hash) already used.
    await sql(`UPDATE audit_head SET audit_seq = $1, hash = $2 WHERE id = 1`, [head.audit_seq - 1, head.prev_hash]);
    try {
      const res = await new Http(a.url).admin().post(`/v1/admin/accounts/${accountId}/deposit`, { amount: '3', reference: 'unrecorded' });
      expect(res.status).toBe(500);
      // The deposit itself committed in its own transaction before the record was tried: the answer said it was not recorded, not that it failed.
      const account = await new Http(a.url).admin().get(`/v1/admin/accounts/${accountId}`);
      expect(account.body.balance.total).toBe('3.00000000');
    } finally {
      await sql(`UPDATE audit_head SET audit_seq = $1, hash = $2 WHERE id = 1`, [head.audit_seq, head.hash]);
    }
    const { rows, head: now } = await allRows(200);
    expect(now.audit_seq).toBe(head.audit_seq);
    expect(verifyAuditChain(rows, { head: now })).toMatchObject({ ok: true });
  });

  it('pages newest first by cursor, filters by action, and refuses bad queries', async () => {
    const admin = new Http(a.url).admin();
    const first = (await admin.get('/v1/admin/audit?limit=3')).body;
    expect(first.rows).toHaveLength(3);
    expect(first.next_cursor).toBe(String(first.rows[2].audit_seq));
    const second = (await admin.get(`/v1/admin/audit?limit=3&after=${first.next_cursor}`)).body;
    expect(second.rows[0].audit_seq).toBe(first.rows[2].audit_seq - 1);
    const deposits = (await admin.get('/v1/admin/audit?action=deposit&limit=200')).body.rows;
    expect(deposits.length).toBeGreaterThanOrEqual(26);
    expect(deposits.every((r: any) => r.action === 'deposit')).toBe(true);
    expect(deposits.map((r: any) => r.audit_seq)).toEqual([...deposits.map((r: any) => r.audit_seq)].sort((x: number, y: number) => y - x));
    for (const query of ['limit=0', 'limit=201', 'after=0', 'after=abc', 'action=DROP%20TABLE', 'account_id=0', 'colour=red'])
      expect([query, (await admin.get(`/v1/admin/audit?${query}`)).status]).toEqual([query, 400]);
  });
});

describe('the admin audit log (design.md section 16): every admin command is recorded', () => {
  it('every admin command route (a non-GET route with admin access or under /v1/admin) carries the audit interceptor', () => {
    const discovery = a.app.get(DiscoveryService);
    const scanner = a.app.get(MetadataScanner);
    const reflector = a.app.get(Reflector);
    const commands: string[] = [];
    const unaudited: string[] = [];
    for (const wrapper of discovery.getControllers()) {
      const prototype = Object.getPrototypeOf(wrapper.instance);
      const base: string = Reflect.getMetadata(PATH_METADATA, wrapper.metatype!) ?? '';
      for (const key of scanner.getAllMethodNames(prototype)) {
        const method = Reflect.getMetadata(METHOD_METADATA, prototype[key]) as RequestMethod | undefined;
        if (method === undefined || method === RequestMethod.GET) continue;
        const access = reflector.getAllAndOverride<Access>(ACCESS, [prototype[key], wrapper.metatype!]);
        if (access?.kind !== 'admin' && !base.replace(/^\//, '').startsWith('v1/admin')) continue;
        const interceptors = [
          ...(Reflect.getMetadata(INTERCEPTORS_METADATA, wrapper.metatype!) ?? []),
          ...(Reflect.getMetadata(INTERCEPTORS_METADATA, prototype[key]) ?? []),
        ];
        commands.push(`${wrapper.name}.${key}`);
        if (!interceptors.includes(AuditTrail)) unaudited.push(`${wrapper.name}.${key}`);
      }
    }
    // Declared admin commands are recorded by the declared-route path itself (common/http/declared-routes.ts).
    for (const name of ROUTE_NAMES) if (ROUTES[name].access.kind === 'admin' && ROUTES[name].method !== 'GET') commands.push(name);
    expect(commands.length).toBeGreaterThanOrEqual(11);
    expect(unaudited).toEqual([]);
  });
});
