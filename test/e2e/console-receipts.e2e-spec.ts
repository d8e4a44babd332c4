import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { type FillToMatch, type Receipt, encodeReceipt, parseRfqSigned, parseRfqUnsigned, parseWallet, receiptHash, signingDomain } from '@legwork/protocol';
import * as nodeVerifier from '../../console/src/receipts';
import { loadVector } from '../vectors';
import { closeBrowser, hasChromium, launch } from './console/browser';

/**
 * The console's receipt checks (console/src/receipts.ts, over `@legwork/protocol`'s verifyReceipt
 * and verifyJournalSegment) over the contract's vectors (docs/spec/design.md 14 and 16): version 2
 * receipts, the version 1 receipt verifiers still accept, the taker's commitment, a receipt of
 * another fill or kind, a malleated signature, and a journal that holds a version 1 receipt
 * followed by version 2 ones. It runs in headless Chromium, where the console runs (the bundle
 * esbuild makes, ed25519 and SHA-256 through @noble), and in Node (the same source, through OpenSSL):
 * the verdicts must be the same.
 */

const vectors = loadVector('receipts.json');
const keys = [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }];
type Verifier = typeof nodeVerifier;
const base64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

interface Case {
  receipt: Receipt;
  fill: FillToMatch;
  kind: 0 | 1;
  taker: string;
  maker: string;
}

/** The fill a receipt input is of, as a /query/rfq-fills row of the taker gives it. */
const fillOf = (i: any): FillToMatch => ({
  fill_id: i.fill_id,
  side: i.side,
  price: i.price,
  fee: i.fee,
  filled_at: i.at,
  rfq_id: i.rfq_id,
  quote_id: i.quote_id,
  role: 'taker',
  legs: i.legs,
});

/** The vectors' receipts as the taker's copies (with the salt), and the version 1 receipt (of the first fill). */
const cases: Case[] = vectors.receipts.map((r: any) => ({
  receipt: {
    journal_seq: r.input.journal_seq,
    kind: r.input.kind,
    payload: base64(r.payload_hex),
    hash: r.hash,
    key_id: r.key_id,
    signature: r.signature,
    taker_salt: r.input.taker_salt,
  },
  // A revert's row is the fill's: its time is the fill's, not the revert's.
  fill: fillOf(r.input.kind === 1 ? vectors.receipts.find((f: any) => f.input.kind === 0 && f.input.fill_id === r.input.fill_id).input : r.input),
  kind: r.input.kind,
  taker: r.input.taker,
  maker: r.input.maker,
}));
const v1: Case = {
  receipt: {
    journal_seq: 1,
    kind: 0,
    payload: base64(vectors.version_1.payload_hex),
    hash: vectors.version_1.hash,
    key_id: vectors.version_1.key_id,
    signature: vectors.version_1.signature,
  },
  fill: fillOf(vectors.receipts[0].input),
  kind: 0,
  taker: vectors.receipts[0].input.taker,
  maker: vectors.receipts[0].input.maker,
};

/** The journal of a server upgraded to version 2: version 1 at journal_seq 1, the vectors' later receipts encoded again after it (links only). */
function upgradedJournal(): Array<{ journal_seq: number; kind: number; hash: string; prev_hash: string; at: number }> {
  const rows = [{ journal_seq: 1, kind: 0, hash: vectors.version_1.hash, prev_hash: '0'.repeat(64), at: vectors.receipts[0].input.at }];
  for (const r of vectors.receipts.slice(1)) {
    const i = r.input;
    const prev = rows[rows.length - 1];
    const payload = encodeReceipt({
      kind: i.kind,
      domain: signingDomain('Legwork'),
      journalSeq: BigInt(prev.journal_seq + 1),
      prevHash: Buffer.from(prev.hash, 'hex'),
      rfqId: i.rfq_id,
      quoteId: i.quote_id,
      takerCommitment: Buffer.from(i.taker_commitment, 'hex'),
      maker: parseWallet(i.maker),
      side: i.side,
      price: parseRfqSigned(i.price),
      fee: parseRfqSigned(i.fee),
      at: i.at,
      fillId: BigInt(i.fill_id),
      legs: i.legs.map((l: any) => ({
        symbol: l.instrument,
        strike: parseRfqUnsigned(l.instrument.split('-')[2]),
        kind: l.instrument.endsWith('-C') ? ('call' as const) : ('put' as const),
        quantity: parseRfqSigned(l.quantity),
      })),
    });
    rows.push({ journal_seq: prev.journal_seq + 1, kind: i.kind, hash: Buffer.from(receiptHash(payload)).toString('hex'), prev_hash: prev.hash, at: i.at });
  }
  return rows;
}

/** Everything the verifier answers for the vectors, gathered by one function run where the verifier lives. */
async function verdicts(v: Verifier, input: { cases: Case[]; v1: Case; keys: typeof keys; journal: any[]; chain: any[] }) {
  const out: Record<string, unknown> = {};
  for (const c of input.cases) {
    const { taker_salt: _salt, ...makers } = c.receipt;
    const seq = c.receipt.journal_seq;
    out[`v2 #${seq}`] = v.checkReceipt(c.receipt, input.keys, c.fill, c.kind);
    out[`v2 #${seq} taker`] = v.checkReceipt(c.receipt, input.keys, c.fill, c.kind, c.taker);
    out[`v2 #${seq} maker's copy`] = v.checkReceipt(makers, input.keys, { ...c.fill, role: 'maker' }, c.kind);
    out[`v2 #${seq} maker's copy, taker`] = v.checkReceipt(makers, input.keys, c.fill, c.kind, c.taker);
    out[`v2 #${seq} another wallet`] = v.checkReceipt(c.receipt, input.keys, c.fill, c.kind, c.maker);
    out[`v2 #${seq} another fill`] = v.checkReceipt(c.receipt, input.keys, { ...c.fill, fill_id: '99' }, c.kind);
    out[`v2 #${seq} other kind`] = v.checkReceipt(c.receipt, input.keys, c.fill, c.kind === 0 ? 1 : 0);
  }
  out.v1 = v.checkReceipt(input.v1.receipt, input.keys, input.v1.fill, 0);
  out['v1 taker'] = v.checkReceipt(input.v1.receipt, input.keys, input.v1.fill, 0, input.v1.taker);
  out['v1 another wallet'] = v.checkReceipt(input.v1.receipt, input.keys, input.v1.fill, 0, input.v1.maker);
  const bytes = Uint8Array.from(atob(input.v1.receipt.payload), (ch) => ch.charCodeAt(0));
  bytes[13] = 3;
  out['version 3'] = v.checkReceipt({ ...input.v1.receipt, payload: btoa(String.fromCharCode(...bytes)) }, input.keys, input.v1.fill, 0);
  // S + L (the group order added to S): the same point equation, a second text of the signature.
  const signature = Uint8Array.from(atob(input.v1.receipt.signature), (ch) => ch.charCodeAt(0));
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]);
  s += (1n << 252n) + 27742317777372353535851937790883648493n;
  for (let i = 32; i < 64; i++, s >>= 8n) signature[i] = Number(s & 255n);
  out['S + L'] = v.checkReceipt({ ...input.v1.receipt, signature: btoa(String.fromCharCode(...signature)) }, input.keys, input.v1.fill, 0);
  const page = (rows: any[]) => async (after: number) => ({ rows: rows.filter((r) => r.journal_seq > after).slice(0, 2), head: rows[rows.length - 1] });
  out.journal = (await v.verifyJournal(page(input.journal))).problem ?? 'ok';
  out.upgraded = (await v.verifyJournal(page(input.chain))).problem ?? 'ok';
  const broken = input.journal.map((r: any, i: number) => (i === 2 ? { ...r, prev_hash: '0'.repeat(64) } : r));
  out.broken = await v.verifyJournal(page(broken));
  return out;
}

function expectVerdicts(out: Record<string, unknown>): void {
  for (const r of vectors.receipts) {
    const seq = r.input.journal_seq;
    expect(out[`v2 #${seq}`]).toBeNull();
    expect(out[`v2 #${seq} taker`]).toBeNull();
    expect(out[`v2 #${seq} maker's copy`]).toBeNull();
    expect(out[`v2 #${seq} maker's copy, taker`]).toBe(`the receipt's taker is not ${r.input.taker}`);
    expect(out[`v2 #${seq} another wallet`]).toBe(`the receipt's taker is not ${r.input.maker}`);
    expect(out[`v2 #${seq} another fill`]).toBe("fill_id differs from the fill's");
    expect(out[`v2 #${seq} other kind`]).toBe(`payload kind ${r.input.kind}, expected ${r.input.kind === 0 ? 1 : 0}`);
  }
  expect(out.v1).toBeNull();
  expect(out['v1 taker']).toBeNull();
  expect(out['v1 another wallet']).toBe(`the receipt's taker is not ${vectors.receipts[0].input.maker}`);
  expect(out['version 3']).toBe('version 3 is not a STRATEGY_FILL receipt version (1 or 2)');
  expect(out['S + L']).toBe('signature does not verify with the exchange key');
  expect(out.journal).toBe('ok');
  expect(out.upgraded).toBe('ok');
  expect(out.broken).toMatchObject({ ok: false, checked: 2, problem: expect.stringContaining('journal_seq 2') });
}

const journal = vectors.receipts.map((r: any) => ({
  journal_seq: r.input.journal_seq,
  kind: r.input.kind,
  hash: r.hash,
  prev_hash: r.input.prev_hash,
  at: r.input.at,
}));

describe("the console's receipt verifier over vectors/receipts.json", () => {
  it('in Node: version 2 and version 1 receipts verify, the taker commitment holds, an upgraded journal walks', async () => {
    expectVerdicts(await verdicts(nodeVerifier, { cases, v1, keys, journal, chain: upgradedJournal() }));
  });

  (hasChromium ? describe : describe.skip)('in headless Chromium, bundled as the console is', () => {
    let browser: Browser;
    let page: Page;
    let server: Server;
    beforeAll(async () => {
      const bundle = await build({
        entryPoints: [join(__dirname, '..', '..', 'console', 'src', 'receipts.ts')],
        bundle: true,
        write: false,
        format: 'iife',
        globalName: 'consoleReceipts',
        target: ['chrome110'],
        platform: 'browser',
        // As console/build.mjs bundles it: the protocol package from its source.
        alias: { '@legwork/protocol': join(__dirname, '..', '..', 'packages', 'protocol', 'src', 'index.ts') },
      });
      // Served from 127.0.0.1, a secure context as the console's own origin is: WebCrypto is there.
      const html = `<!doctype html><title>receipts</title><script>${bundle.outputFiles[0].text}</script>`;
      server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      browser = await launch();
      page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    }, 60_000);
    afterAll(async () => {
      await closeBrowser(browser);
      server?.close();
    });

    it('gives the same verdicts through @noble', async () => {
      const input = { cases, v1, keys, journal, chain: upgradedJournal() };
      // The same function, run in the page against the bundle.
      const out = await page.evaluate(`(${verdicts.toString()})(consoleReceipts, ${JSON.stringify(input)})`);
      expectVerdicts(out as Record<string, unknown>);
    });
  });
});
