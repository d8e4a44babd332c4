import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ed25519Verifier, encodeReceipt, keyIdOf, parseRfqSigned, parseWallet, signingDomain, takerCommitment } from '@legwork/protocol';
import { verifyJournalSegment, verifyReceipt } from '../../sdk/src/index';
import { Database } from '../../src/common/database/database';
import { parseSymbol } from '../../src/modules/instruments/domain/symbol';
import { Http } from './clients';
import { Environment, type TestApp } from './harness';
import { type RfqTrader, type Round, expirationIn, leg, listRound, on } from './rfq-support';
import { acceptAndFill, acceptParams, fillsOf, marketData, pair, quoted, waitForState } from './support/ledger';

/**
 * docs/spec/design.md section 14: every fill and revert gets a receipt signed by the exchange, chained by
 * prev_hash with a gapless journal_seq; anyone can verify one with GET /v1/exchange/keys.
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

/** A receipt's legs (section 14) for RFQ legs as sent: strike and kind read from each symbol. */
const receiptLegs = (legs: ReadonlyArray<{ instrument: string; quantity: string }>) =>
  legs.map((l) => ({
    symbol: l.instrument,
    strike: parseSymbol(l.instrument)!.strike,
    kind: parseSymbol(l.instrument)!.kind,
    quantity: parseRfqSigned(l.quantity),
  }));

describe('Fill receipts and the journal', () => {
  let env: Environment;
  let app: TestApp;
  let sol: Round;
  let http: Http;
  const traders: RfqTrader[] = [];

  const journal = async (after = 0, limit = 1000) => (await http.get(`/v1/exchange/journal?after=${after}&limit=${limit}`)).body;
  const keys = async () => (await http.get('/v1/exchange/keys')).body.keys;

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
    for (const t of traders) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  it('GET /v1/exchange/keys is public: the key of EXCHANGE_SIGNING_KEY (or the embedded one) with its key_id', async () => {
    const list = await keys();
    expect(list).toEqual([{ key_id: expect.stringMatching(/^[0-9a-f]{16}$/), public_key: expect.any(String), from: expect.any(Number) }]);
    expect(keyIdOf(parseWallet(list[0].public_key))).toBe(list[0].key_id);
    expect(await journal()).toEqual({ rows: [], head: { journal_seq: 0, hash: '0'.repeat(64) } });
  });

  it("a fill's receipt is in the filled events and the fill rows, verifies with the exchange key, and is the section 14 layout byte for byte", async () => {
    const { taker, maker } = await pair(app, '1000', '10000');
    traders.push(taker, maker);
    await taker.client.result('rfq.subscribe', {});
    await maker.client.result('rfq.maker.subscribe', {});
    const legs = [leg(sol.symbol('150'), '1'), leg(sol.symbol('140', 'put'), '-2')];
    const q = await quoted(taker, maker, sol.expiry, legs, { bid: '1.5', ask: '2.25' });
    const filled = await acceptAndFill(taker, q, 'buy');
    expect(filled.state).toBe('filled');

    const takerEvent = await taker.client.next(on('rfq', 'filled', q.rfqId));
    const makerEvent = await maker.client.next(on('rfq_maker', 'filled', q.rfqId));
    const receipt = takerEvent.data.rfq.fill.receipt;
    expect(receipt).toEqual({
      journal_seq: expect.any(Number),
      kind: 0,
      payload: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      key_id: (await keys())[0].key_id,
      signature: expect.any(String),
      taker_salt: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The maker's copy is the same signed receipt without the taker's salt (docs/spec/design.md 16).
    const { taker_salt: salt, ...signed } = receipt;
    expect(makerEvent.data.rfq.fill.receipt).toEqual(signed);
    expect(makerEvent.data.account_seq).toEqual(expect.any(Number));

    // Byte for byte: the payload a third party rebuilds from the fill and the journal.
    const [row] = await fillsOf(app, taker.accountId);
    expect(row.receipt).toEqual(receipt);
    expect(row.revert_receipt).toBeNull();
    const seg = await journal(receipt.journal_seq - 1, 1);
    const expected = encodeReceipt({
      kind: 0,
      domain: signingDomain('Legwork'),
      journalSeq: BigInt(receipt.journal_seq),
      prevHash: Buffer.from(seg.rows[0].prev_hash, 'hex'),
      rfqId: q.rfqId,
      quoteId: q.quoteId,
      takerCommitment: takerCommitment(Buffer.from(salt, 'hex'), taker.wallet.publicKey),
      maker: maker.wallet.publicKey,
      side: 'buy',
      price: parseRfqSigned(filled.fill.price),
      fee: parseRfqSigned(filled.fill.fee),
      at: filled.fill.filled_at,
      fillId: BigInt(filled.fill.fill_id),
      legs: receiptLegs(legs),
    });
    expect(Buffer.from(receipt.payload, 'base64').equals(expected)).toBe(true);
    expect(seg.rows[0].hash).toBe(receipt.hash);
    const key = parseWallet((await keys())[0].public_key);
    expect(new Ed25519Verifier().verify(key, expected, Buffer.from(receipt.signature, 'base64'))).toBe(true);
    // And the SDK's check, against the fill row as the query API gives it.
    const decoded = verifyReceipt(row.receipt, { keys: await keys(), fill: row, taker: taker.wallet.address });
    expect(decoded.takerCommitment).toBe(Buffer.from(takerCommitment(Buffer.from(salt, 'hex'), taker.wallet.publicKey)).toString('hex'));
  });

  it('64 concurrent fills and a revert leave one chain with no gap and no fork; verify-journal passes, then names the first broken link', async () => {
    const pairs = await Promise.all(Array.from({ length: 8 }, () => pair(app, '1000', '100000')));
    for (const p of pairs) traders.push(p.taker, p.maker);
    const quotes = (
      await Promise.all(
        pairs.map(async ({ taker, maker }) => {
          const list = [];
          for (let i = 0; i < 8; i++) list.push({ taker, q: await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]) });
          return list;
        }),
      )
    ).flat();
    const before = (await journal()).head.journal_seq;
    // All 64 accepted at once: their fill jobs run concurrently and meet at the journal head.
    await Promise.all(quotes.map(({ taker, q }) => taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'))));
    // 110 s: on a loaded 2-core machine (the other jest worker busy) 64 fills have taken over 60 s.
    const states = await Promise.all(quotes.map(({ taker, q }) => waitForState(taker, q.rfqId, ['filled', 'failed'], 110_000)));
    expect(states.map((s) => s.state)).toEqual(quotes.map(() => 'filled'));
    const reverted = quotes[5];
    const res = await new Http(app.url).admin().post(`/v1/admin/rfq/${reverted.q.rfqId}/revert`, {});
    expect(res.status).toBe(200);

    const all = await journal();
    expect(all.head.journal_seq).toBe(before + 65);
    expect(all.rows.map((r: any) => r.journal_seq)).toEqual(Array.from({ length: before + 65 }, (_, i) => i + 1));
    expect(verifyJournalSegment(all.rows)).toEqual({ ok: true, head: all.head });
    expect(new Set(all.rows.map((r: any) => r.prev_hash)).size).toBe(all.rows.length); // no fork: no two receipts link to one
    expect(all.rows.filter((r: any) => r.kind === 1)).toHaveLength(1);
    // Paging gives the same chain.
    const firstPage = await journal(0, 10);
    expect(firstPage.rows).toEqual(all.rows.slice(0, 10));

    // The revert's receipt repeats the fill's terms at the revert's time, and verifies against the row.
    const rows = await fillsOf(app, reverted.taker.accountId);
    const row = rows.find((r: any) => r.rfq_id === reverted.q.rfqId);
    expect(row.reverted).toBe(true);
    expect(row.revert_receipt).toMatchObject({ kind: 1, journal_seq: before + 65 });
    const k = await keys();
    for (const r of rows) verifyReceipt(r.receipt, { keys: k, fill: r });
    verifyReceipt(row.revert_receipt, { keys: k, fill: row });

    // `cli fills` as the reverted RFQ's taker: every row's receipt checked, the revert's too.
    const fills = await cli(['fills', '--url', app.url, '--seed', Buffer.from(reverted.taker.wallet.seed).toString('hex'), '--no-cache']);
    expect(fills.code).toBe(0);
    const lines = fills.out.split('\n').filter((l) => /^\s*\d+ /.test(l));
    expect(lines).toHaveLength(8);
    expect(lines.every((l) => / verified #\d+/.test(l))).toBe(true);
    expect(lines.filter((l) => /verified #\d+, revert #\d+/.test(l))).toHaveLength(1);

    const ok = await cli(['verify-journal', '--url', app.url]);
    expect(ok).toEqual({ code: 0, out: `journal ok: ${before + 65} receipts, head journal_seq ${all.head.journal_seq} hash ${all.head.hash}\n` });

    // History rewritten in the database: the next link no longer holds, and the CLI names it.
    await app.app.get(Database).dataSource.query(`UPDATE receipts SET hash = repeat('f', 64) WHERE journal_seq = 10`);
    const broken = await cli(['verify-journal', '--url', app.url]);
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/^journal BROKEN at journal_seq 11: prev_hash [0-9a-f]{64} is not the hash f{64} of journal_seq 10/);
  }, 120_000);

  it("a fill's transaction plans its statements generically, and only it: the setting ends with its COMMIT", async () => {
    const db = app.app.get(Database);
    const modes: string[] = [];
    const tx = db.tx.bind(db);
    // Each transaction's plan_cache_mode as it stands at its end, read in the transaction itself.
    const spy = jest.spyOn(db, 'tx').mockImplementation((fn, isolation) =>
      tx(async (t) => {
        const result = await fn(t);
        modes.push((await t.one<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`))!.mode);
        return result;
      }, isolation),
    );
    try {
      const { taker, maker } = await pair(app, '1000', '10000');
      traders.push(taker, maker);
      const q = await quoted(taker, maker, sol.expiry, [leg(sol.symbol('150'), '1')]);
      expect((await acceptAndFill(taker, q, 'buy')).state).toBe('filled');
    } finally {
      spy.mockRestore();
    }
    // The fill's one transaction; the others (deposits, the quote, the accept) plan as configured.
    expect(modes.filter((m) => m === 'force_generic_plan')).toHaveLength(1);
    expect(modes.filter((m) => m !== 'force_generic_plan').length).toBeGreaterThan(0);
    expect(new Set(modes.filter((m) => m !== 'force_generic_plan'))).toEqual(new Set(['auto']));
    expect((await db.one<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`))!.mode).toBe('auto');
  });

  it('journal parameters are checked (400 with the field named)', async () => {
    for (const query of ['limit=0', 'limit=1001', 'after=-1', 'after=x']) {
      const res = await http.get(`/v1/exchange/journal?${query}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(query.split('=')[0]);
    }
  });
});
