import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeReceipt, encodeReceipt, encodeWallet, parseWallet, receiptHash, signingDomain, takerCommitment } from '@legwork/protocol';
import { isTakerOf, verifyReceipt } from '../../sdk/src/index';
import { Database } from '../../src/common/database/database';
import { Http, type RpcClient } from './clients';
import { ExchangeKeyService } from '../../src/modules/journal/exchange-key.service';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, expirationIn, leg, listRound, on, resumeWs, sessionToken } from './rfq-support';
import { acceptAndFill, fillsOf, marketData, pair, quoted } from './support/ledger';

/**
 * docs/spec/design.md 16, "Takers stay anonymous in receipts": a receipt (version 2) holds the taker's
 * commitment, not its key; the taker's copies carry the salt, the maker's never; a revert commits
 * with its fill's salt; a journal that began with version 1 receipts still verifies.
 */

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run('node', [join(ROOT, 'dist-tools/src/cli.js'), ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, out: stdout };
  } catch (error: any) {
    return { code: error.code ?? -1, out: `${error.stdout ?? ''}${error.stderr ?? ''}` };
  }
}

/**
 * Where `secrets` (32 bytes each) show in `values` (JSON texts or objects): as hex, base58,
 * base64, or as bytes inside any base64 string (a receipt payload). Each finding names the secret
 * and the form.
 */
function leaks(values: unknown[], secrets: Record<string, Buffer>): string[] {
  const found: string[] = [];
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      strings.push(v);
      if (v.startsWith('{') || v.startsWith('[')) walk(JSON.parse(v));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  values.forEach(walk);
  for (const [name, bytes] of Object.entries(secrets)) {
    const forms = { hex: bytes.toString('hex'), base64: bytes.toString('base64'), base58: encodeWallet(bytes) };
    for (const text of strings) {
      for (const [form, encoded] of Object.entries(forms)) if (text.includes(encoded)) found.push(`${name} as ${form}`);
      if (/^[A-Za-z0-9+/]{40,}={0,2}$/.test(text) && Buffer.from(text, 'base64').includes(bytes)) found.push(`${name} inside base64 bytes`);
    }
  }
  return [...new Set(found)];
}

describe('Takers stay anonymous in receipts (version 2)', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let http: Http;
  const traders: RfqTrader[] = [];
  const clients: RpcClient[] = [];
  const sql = (text: string, params: unknown[] = []) => app.app.get(Database).rows<any>(text, params);
  const keys = async () => (await http.get('/v1/exchange/keys')).body.keys;
  const as = (t: RfqTrader, role: string) => new Http(app.url).as(sessionToken(t.wallet.address, t.accountId, [role]));

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '3600', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
    app = await env.start();
    http = new Http(app.url);
    sol = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150', '0.8');
    // The CLI the test runs, built as `npm run cli` would; `npm test` built it before its jest workers
    // started (LEGWORK_PREBUILT=1), so that two files do not write dist-tools at once.
    if (process.env.LEGWORK_PREBUILT !== '1') await run('npm', ['run', '-s', 'tools:build'], { cwd: ROOT, timeout: 180_000 });
  }, 240_000);
  afterAll(async () => {
    for (const c of [...traders.map((t) => t.client), ...clients]) await c.close();
    await app?.close();
    await env?.destroy();
  });

  /**
   * Turns the first fill (journal_seq 1, of `rfqId`) into what the exchange before version 2 signed: the
   * version 1 receipt of the same fill (the taker's key at offset 136, signed by the same key), and a
   * fill row with no salt, as the migration leaves such rows.
   */
  const rewriteAsVersion1 = async (taker: RfqTrader, rfqId: string) => {
    const [stored] = await sql(`SELECT journal_seq, payload FROM receipts ORDER BY journal_seq`);
    expect(Number(stored.journal_seq)).toBe(1);
    const d = decodeReceipt(stored.payload);
    expect(d.version).toBe(2);
    const v1 = Buffer.from(
      encodeReceipt({
        ...d,
        version: 1,
        domain: signingDomain('Legwork'),
        prevHash: Buffer.alloc(32),
        takerCommitment: undefined,
        taker: taker.wallet.publicKey,
        maker: parseWallet(d.maker),
        legs: d.legs.map((l) => ({ symbol: l.instrument, strike: l.strike, kind: l.kind, quantity: l.quantity })),
      }),
    );
    const exchangeKey = app.app.get(ExchangeKeyService);
    expect(exchangeKey.keyId).toBe((await keys())[0].key_id);
    const hash = Buffer.from(receiptHash(v1)).toString('hex');
    await sql(`UPDATE receipts SET payload = $1, hash = $2, signature = $3 WHERE journal_seq = 1`, [v1, hash, exchangeKey.sign(v1).toString('base64')]);
    await sql(`UPDATE journal_head SET hash = $1`, [hash]);
    await sql(`UPDATE fills SET taker_salt = NULL WHERE rfq_id = $1`, [rfqId]);
  };

  it('a journal that holds a version 1 receipt followed by version 2 ones: verify-journal passes, and cli fills verifies both and the taker', async () => {
    const { taker, maker } = await pair(app, '1000', '10000');
    traders.push(taker, maker);
    const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
    expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    // The exchange before version 2 signed this fill.
    await rewriteAsVersion1(taker, q.rfqId);

    // Then version 2: another fill, the revert of the version 1 fill, a third fill.
    const second = await pair(app, '1000', '10000');
    traders.push(second.taker, second.maker);
    const q2 = await quoted(second.taker, second.maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
    expect((await acceptAndFill(second.taker, q2, 'buy')).state).toBe('filled');
    expect((await new Http(app.url).admin().post(`/v1/admin/rfq/${q.rfqId}/revert`, {})).status).toBe(200);
    const q3 = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('160'), '1')]);
    expect((await acceptAndFill(taker, q3, 'buy')).state).toBe('filled');

    const versions = (await sql(`SELECT payload FROM receipts ORDER BY journal_seq`)).map((r) => decodeReceipt(r.payload).version);
    expect(versions).toEqual([1, 2, 2, 2]);
    const journal = (await http.get('/v1/exchange/journal')).body;
    expect(await cli(['verify-journal', '--url', app.url])).toEqual({
      code: 0,
      out: `journal ok: 4 receipts, head journal_seq 4 hash ${journal.head.hash}\n`,
    });

    // The version 1 fill verifies and names its taker; its revert (version 2) commits with a salt
    // drawn at the revert, which the fill row now keeps and the taker's rows carry.
    const rows = await fillsOf(app, taker.accountId);
    const old = rows.find((r) => r.rfq_id === q.rfqId);
    expect(decodeReceipt(Buffer.from(old.receipt.payload, 'base64'))).toMatchObject({ version: 1, taker: taker.wallet.address });
    expect(old.revert_receipt.taker_salt).toMatch(/^[0-9a-f]{64}$/);
    expect(old.receipt.taker_salt).toBe(old.revert_receipt.taker_salt);
    for (const r of rows) {
      verifyReceipt(r.receipt, { keys: await keys(), fill: r, taker: taker.wallet.address });
      if (r.revert_receipt) verifyReceipt(r.revert_receipt, { keys: await keys(), fill: r, taker: taker.wallet.address });
    }
    const fills = await cli(['fills', '--url', app.url, '--seed', Buffer.from(taker.wallet.seed).toString('hex'), '--no-cache']);
    expect(fills.code).toBe(0);
    const lines = fills.out.split('\n').filter((l) => /^\s*\d+ /.test(l));
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes(q.rfqId))).toMatch(/verified #1, revert #3; taker proven/);
    expect(lines.find((l) => l.includes(q3.rfqId))).toMatch(/verified #4; taker proven/);
  }, 120_000);

  describe('a fill and its revert, from both sides', () => {
    let taker: RfqTrader;
    let maker: RfqTrader;
    let rfqId: string;
    let salt: string;
    let takerFilled: any;

    beforeAll(async () => {
      ({ taker, maker } = await pair(app, '1000', '10000'));
      traders.push(taker, maker);
      await taker.client.result('rfq.subscribe', {});
      await maker.client.result('rfq.maker.subscribe', {});
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1'), leg(sol.symbol('140', 'put'), '-1')]);
      rfqId = q.rfqId;
      expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
      takerFilled = (await taker.client.next(on('rfq', 'filled', rfqId))).data.rfq.fill;
      salt = takerFilled.receipt.taker_salt;
      await maker.client.next(on('rfq_maker', 'filled', rfqId));
      expect((await new Http(app.url).admin().post(`/v1/admin/rfq/${rfqId}/revert`, {})).status).toBe(200);
      await taker.client.next(on('rfq', 'failed', rfqId));
      await maker.client.next(on('rfq_maker', 'failed', rfqId));
    }, 60_000);

    it("the taker's copies carry the salt, the commitment recomputes from it, and the revert reuses the fill's salt", async () => {
      expect(salt).toMatch(/^[0-9a-f]{64}$/);
      expect(takerFilled.receipt.taker_salt).toBe(salt);
      const [row] = await sql(`SELECT encode(taker_salt, 'hex') AS salt FROM fills WHERE rfq_id = $1`, [rfqId]);
      expect(row.salt).toBe(salt);
      const commitment = Buffer.from(takerCommitment(Buffer.from(salt, 'hex'), taker.wallet.publicKey)).toString('hex');
      expect(decodeReceipt(Buffer.from(takerFilled.receipt.payload, 'base64'))).toMatchObject({ version: 2, taker: null, takerCommitment: commitment });
      expect(isTakerOf(takerFilled.receipt, taker.wallet.address)).toBe(true);
      expect(isTakerOf(takerFilled.receipt, maker.wallet.address)).toBe(false);

      // The taker's own rows (its session, not an admin's): the salt on both receipts.
      const res = await as(taker, 'taker').get('/query/rfq-fills');
      expect(res.status).toBe(200);
      const mine = res.body.rows.find((r: any) => r.rfq_id === rfqId);
      expect(mine).toMatchObject({
        role: 'taker',
        reverted: true,
        receipt: { taker_salt: salt },
        revert_receipt: { kind: 1, taker_salt: salt },
      });
      const revert = decodeReceipt(Buffer.from(mine.revert_receipt.payload, 'base64'));
      expect(revert.takerCommitment).toBe(commitment);
      verifyReceipt(mine.revert_receipt, { keys: await keys(), fill: mine, taker: taker.wallet.address });

      // And replayed: the taker's stored `filled` event comes back with the salt.
      const again = await resumeWs(app, taker.wallet, taker.accountId, ['taker']);
      clients.push(again);
      await again.result('rfq.subscribe', { since: 0 });
      const replayed = (await again.next(on('rfq', 'filled', rfqId))).data.rfq.fill;
      expect(replayed.receipt).toEqual(takerFilled.receipt);
    });

    it("everything the maker sees (events live and replayed, its rows, the public journal) holds neither the taker's key nor the salt", async () => {
      const secrets = { "taker's key": Buffer.from(taker.wallet.publicKey), salt: Buffer.from(salt, 'hex') };
      // The maker's receipt: the same signed bytes, offset 136 the commitment, no salt.
      const live = maker.client.raw.filter((m) => m.method === 'subscription' && m.params?.data?.rfq?.rfq_id === rfqId);
      const filled = live.find((m) => m.params.data.event === 'filled').params.data.rfq.fill;
      expect(filled.receipt.taker_salt).toBeUndefined();
      const { taker_salt: _, ...signed } = takerFilled.receipt;
      expect(filled.receipt).toEqual(signed);
      expect(decodeReceipt(Buffer.from(filled.receipt.payload, 'base64')).taker).toBeNull();

      const replay = await resumeWs(app, maker.wallet, maker.accountId, ['quoter']);
      clients.push(replay);
      await replay.result('rfq.maker.subscribe', { since: 0 });
      await replay.next(on('rfq_maker', 'failed', rfqId));
      const polled = await maker.client.call('rfq.maker.poll', {});
      const reads = await Promise.all(
        ['/query/rfq-fills', '/query/rfq-positions?status=all', '/query/balances', '/query/positions'].map(async (path) => {
          const res = await as(maker, 'quoter').get(path);
          expect(res.status).toBe(200);
          return res.body;
        }),
      );
      const makerRow = reads[0].rows.find((r: any) => r.rfq_id === rfqId);
      expect(makerRow).toMatchObject({ role: 'maker', receipt: { kind: 0 }, revert_receipt: { kind: 1 } });
      expect(JSON.stringify(makerRow)).not.toContain('taker_salt');
      const journal = (await http.get('/v1/exchange/journal')).body;

      const seen = [...maker.client.texts, ...replay.texts, polled, ...reads, journal];
      expect(leaks(seen, secrets)).toEqual([]);
      // The check finds them where they are: in the taker's own copies, and in a payload of version 1.
      const v1Like = Buffer.alloc(1072);
      v1Like.set(taker.wallet.publicKey, 136);
      expect(leaks([{ payload: v1Like.toString('base64') }], secrets)).toEqual(["taker's key inside base64 bytes"]);
      expect(leaks([...taker.client.texts], secrets)).toEqual(expect.arrayContaining(['salt as hex']));
    });
  });
});
