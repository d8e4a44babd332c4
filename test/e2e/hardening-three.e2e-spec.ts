import { freshIp } from './clients';
import { createAccount } from './factories';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';
import { expectRfqError, resumeWs, sessionToken } from './rfq-support';

/**
 * docs/spec/design.md section 20 as a client sees it, the attack of each finding first:
 * authenticated reads are limited per account and junk bearers per address; audit rows stay
 * small and secret-free, and an admin body over 64 KiB is refused before it is applied; /metrics
 * behind a proxy needs its token at start.
 */
let env: Environment;
let app: TestApp;

beforeAll(async () => {
  // The public bucket at its defaults (the harness raises it for every other file); the reads' bucket
  // small (5/s, burst 20), so that a slow client on a loaded machine still outruns it.
  env = await Environment.create({
    QUERY_RATE_PER_SECOND: '5',
    QUERY_RATE_BURST: '20',
    PUBLIC_RATE_PER_SECOND: '20',
    PUBLIC_RATE_BURST: '50',
    RFQ_RATE_PER_SECOND: '100000',
    RFQ_RATE_BURST: '100000',
  });
  app = await env.start();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await env?.destroy();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: any;
}
async function get(path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(app.url + path, { headers });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
}
async function admin(method: string, path: string, body: string): Promise<Answer> {
  const res = await fetch(app.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
}
const latestAudit = async () => (await get('/v1/admin/audit?limit=1', { authorization: `Bearer ${ADMIN_TOKEN}` })).body;

describe('authenticated reads are limited (design.md section 20)', () => {
  it('the attack: one account reading /query/* as fast as it can is refused past its bucket, 429 with Retry-After', async () => {
    const taker = await createAccount(app, ['taker']);
    const auth = { authorization: `Bearer ${sessionToken(taker.wallet.address, taker.accountId, ['taker'])}`, 'x-forwarded-for': freshIp() };
    // The finding: 300 reads at once from one account, all answered. Here 100 against a bucket of 20.
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, () => get('/query/rfq-positions', auth)));
    const admitted = answers.filter((a) => a.status === 200).length;
    const most = 20 + Math.ceil(((Date.now() - started) / 1000) * 5) + 1;
    expect(admitted).toBeGreaterThanOrEqual(20);
    expect(admitted).toBeLessThanOrEqual(most);
    const refused = answers.find((a) => a.status !== 200)!;
    expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
    expect(refused.body.error).toMatch(/at most 5 reads per second per account \(burst 20\)/);
    // Another account is not affected.
    const other = await createAccount(app, ['taker']);
    expect((await get('/query/rfq-positions', { authorization: `Bearer ${sessionToken(other.wallet.address, other.accountId, ['taker'])}` })).status).toBe(200);
  });

  it('the read methods over the WebSocket take from the same bucket: RFQ_RATE_LIMITED with retry_after_ms', async () => {
    const taker = await createAccount(app, ['taker']);
    const client = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
    try {
      // 60 at a time: under the 64 requests a connection may have in flight.
      const replies: any[] = [];
      for (let round = 0; round < 2; round++) {
        const batch = Array.from({ length: 60 }, (_, i) => (i % 2 ? client.call('rfq.list', {}) : client.call('rfq.get', { rfq_id: 'r' + 'a'.repeat(20) })));
        replies.push(...(await Promise.all(batch)));
      }
      const limited = replies.filter((r) => r.error?.data?.error === 'RFQ_RATE_LIMITED');
      expect(limited.length).toBeGreaterThanOrEqual(60);
      expectRfqError(limited[0], 'RFQ_RATE_LIMITED', true);
      expect(limited[0].error.data).toMatchObject({ reason: 'query_rate', retry_after_ms: expect.any(Number) });
      expect(limited[0].error.data.retry_after_ms).toBeGreaterThanOrEqual(1);
      // HTTP and WebSocket reads of the account share it: /query/* is refused too now.
      const auth = { authorization: `Bearer ${sessionToken(taker.wallet.address, taker.accountId, ['taker'])}` };
      const after = await Promise.all(Array.from({ length: 10 }, () => get('/query/rfq-positions', auth)));
      expect(after.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('the attack: 200 junk bearers from one address are 401 until the public bucket is spent, then 429 with Retry-After', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    let refused: Answer | undefined;
    for (let i = 0; i < 120; i++) {
      const a = await get('/query/rfq-positions', { authorization: `Bearer junk.${i}.token`, 'x-forwarded-for': ip });
      statuses.push(a.status);
      if (a.status === 429) refused ??= a;
    }
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(50);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(refused!.retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
  });
});

describe('audit rows stay small and secret-free (design.md section 20)', () => {
  it('the attack: api-key, privKey, authorization, jwt, cookie, pass, sig at any depth are [redacted]; a 60 KB string is cut with its length', async () => {
    const secrets = {
      'api-key': 'K1',
      privKey: 'K2',
      deeper: [{ authorization: 'Bearer K3', jwt: 'K4', cookie: 'K5', pass: 'K6', sig: 'K7', seedPhrase: 'K8' }],
    };
    const long = 'x'.repeat(60_000);
    const res = await admin('POST', '/v1/admin/market-data', JSON.stringify({ asset: 'SOL', index_price: '150', nested: secrets, note: long }));
    expect(res.status).toBe(400);
    const [row] = (await latestAudit()).rows;
    expect(row).toMatchObject({ action: 'market-data', status: 400 });
    expect(row.params.nested).toEqual({
      'api-key': '[redacted]',
      privKey: '[redacted]',
      deeper: [{ authorization: '[redacted]', jwt: '[redacted]', cookie: '[redacted]', pass: '[redacted]', sig: '[redacted]', seedPhrase: '[redacted]' }],
    });
    expect(row.params.note).toBe(`${'x'.repeat(1024)}…[cut: 60000 characters]`);
    expect(JSON.stringify(row)).not.toMatch(/K[1-8]/);
    expect(JSON.stringify(row).length).toBeLessThan(2000);
  });

  it('an admin body over 64 KiB is refused with 413 before it is applied: no row, no change', async () => {
    const before = (await latestAudit()).head.audit_seq;
    const res = await admin('POST', '/v1/admin/accounts', JSON.stringify({ wallet: 'x', roles: ['taker'], padding: 'p'.repeat(65 * 1024) }));
    expect(res.status).toBe(413);
    expect((await latestAudit()).head.audit_seq).toBe(before);
  });
});

describe('metrics behind a proxy (design.md section 20)', () => {
  it('the attack: TRUST_PROXY on a loopback HOST without METRICS_TOKEN does not start', async () => {
    await expect(env.start({ METRICS_TOKEN: '', TRUST_PROXY: 'true' })).rejects.toThrow(/METRICS_TOKEN.*TRUST_PROXY/);
    await expect(env.start({ METRICS_TOKEN: '', TRUST_PROXY: '2' })).rejects.toThrow(/METRICS_TOKEN/);
  });

  it('behind a proxy /metrics takes the token; with TRUST_PROXY false and no token it is open on loopback', async () => {
    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    const own = await Environment.create({ METRICS_TOKEN: '', TRUST_PROXY: 'false' });
    const open = await own.start();
    try {
      expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
    } finally {
      await open.close();
      await own.destroy();
    }
  });
});
