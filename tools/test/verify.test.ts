// node:test over verify-journal's walk and the fills' receipt status: `npm run test:tools`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeReceipt, parseRfqSigned, parseRfqUnsigned, parseWallet, receiptHash, signEd25519, signingDomain } from '@legwork/protocol';
import { LegworkHttp, type RfqFillRow } from '@legwork/sdk';
import { journalLines, receiptStatus, walkJournal } from '../src/verify';

// dist-tools/test → the repository's copy of the contract's vectors.
const vectors = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'vectors', 'receipts.json'), 'utf8'));
const chain = vectors.receipts.map((r: any) => ({
  journal_seq: r.input.journal_seq,
  kind: r.input.kind,
  hash: r.hash,
  prev_hash: r.input.prev_hash,
  at: r.input.at,
}));

/**
 * A journal as a server upgraded to version 2 has it: the version 1 receipt of the vectors at
 * journal_seq 1, then the vectors' later receipts signed again as version 2 at 2, 3, 4, each
 * linked to the one before.
 */
function upgradedChain(): Array<{ row: any; receipt: any; input: any }> {
  const seed = Buffer.from(vectors.exchange_seed_hex, 'hex');
  const v1 = vectors.version_1;
  const out: Array<{ row: any; receipt: any; input: any }> = [
    {
      row: { journal_seq: 1, kind: 0, hash: v1.hash, prev_hash: '0'.repeat(64), at: vectors.receipts[0].input.at },
      receipt: {
        journal_seq: 1,
        kind: 0,
        payload: Buffer.from(v1.payload_hex, 'hex').toString('base64'),
        hash: v1.hash,
        key_id: v1.key_id,
        signature: v1.signature,
      },
      input: vectors.receipts[0].input,
    },
  ];
  for (const r of vectors.receipts.slice(1)) {
    const i = r.input;
    const seq = out.length + 1;
    const prevHash = out[out.length - 1].row.hash;
    const payload = encodeReceipt({
      kind: i.kind,
      domain: signingDomain('Legwork'),
      journalSeq: BigInt(seq),
      prevHash: Buffer.from(prevHash, 'hex'),
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
    const hash = Buffer.from(receiptHash(payload)).toString('hex');
    const signature = Buffer.from(signEd25519(seed, payload)).toString('base64');
    out.push({
      row: { journal_seq: seq, kind: i.kind, hash, prev_hash: prevHash, at: i.at },
      receipt: {
        journal_seq: seq,
        kind: i.kind,
        payload: Buffer.from(payload).toString('base64'),
        hash,
        key_id: vectors.key_id,
        signature,
        taker_salt: i.taker_salt,
      },
      input: i,
    });
  }
  return out;
}

describe('verify-journal', () => {
  let rows = chain;
  let server: Server;
  let url: string;
  const requests: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      requests.push(req.url!);
      const query = new URL(req.url!, 'http://x').searchParams;
      const afterSeq = Number(query.get('after') ?? 0);
      const limit = Number(query.get('limit') ?? 500);
      const last = rows[rows.length - 1];
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ rows: rows.filter((r: any) => r.journal_seq > afterSeq).slice(0, limit), head: { journal_seq: last.journal_seq, hash: last.hash } }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('walks every page and prints the head', async () => {
    const walk = await walkJournal(new LegworkHttp(url), 3);
    assert.deepEqual(journalLines(walk), [`journal ok: 4 receipts, head journal_seq 4 hash ${vectors.receipts[3].hash}`]);
    assert.deepEqual(requests.slice(-2), ['/v1/exchange/journal?after=0&limit=3', '/v1/exchange/journal?after=3&limit=3']);
  });

  it('prints the first broken link: a rewritten hash, a missing number', async () => {
    rows = chain.map((r: any) => (r.journal_seq === 2 ? { ...r, hash: 'f'.repeat(64) } : r));
    assert.match(journalLines(await walkJournal(new LegworkHttp(url), 3))[0], /^journal BROKEN at journal_seq 3: prev_hash/);
    rows = chain.filter((r: any) => r.journal_seq !== 2);
    assert.match(journalLines(await walkJournal(new LegworkHttp(url)))[0], /^journal BROKEN at journal_seq 2: journal_seq 2 is missing/);
    rows = chain;
  });

  it('passes over a journal that holds a version 1 receipt followed by version 2 receipts', async () => {
    const upgraded = upgradedChain();
    rows = upgraded.map((u) => u.row);
    const head = upgraded[upgraded.length - 1].row;
    assert.deepEqual(journalLines(await walkJournal(new LegworkHttp(url), 2)), [`journal ok: 4 receipts, head journal_seq 4 hash ${head.hash}`]);
    rows = chain;
  });
});

describe('cli fills over an upgraded journal: version 1 and version 2 receipts, the taker proven', () => {
  const keys = [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }];
  const upgraded = upgradedChain();
  const rowOf = (u: { receipt: any; input: any }, changes: Partial<RfqFillRow> = {}): RfqFillRow => ({
    fill_id: u.input.fill_id,
    rfq_id: u.input.rfq_id,
    quote_id: u.input.quote_id,
    role: 'taker',
    side: u.input.side,
    legs: u.input.legs,
    price: u.input.price,
    fee: u.input.fee,
    filled_at: u.input.at,
    reverted: false,
    receipt: u.receipt,
    revert_receipt: null,
    ...changes,
  });
  const taker = vectors.receipts[0].input.taker;

  it('verifies both versions and that each commits to (or names) the wallet of the CLI', () => {
    assert.equal(receiptStatus(rowOf(upgraded[0]), keys, taker), 'verified #1; taker proven');
    assert.equal(receiptStatus(rowOf(upgraded[3]), keys, taker), 'verified #4; taker proven');
    // The revert (journal_seq 3) of the fill at journal_seq 2 commits with the same salt.
    const [fill, revert] = [upgraded[1], upgraded[2]];
    assert.equal(receiptStatus(rowOf(fill, { reverted: true, revert_receipt: revert.receipt }), keys, taker), 'verified #2, revert #3; taker proven');
  });

  it("refuses another wallet, and a row without the salt proves nothing; a maker's row is checked without it", () => {
    const maker = vectors.receipts[0].input.maker;
    assert.equal(receiptStatus(rowOf(upgraded[0]), keys, maker), `NOT VERIFIED: the receipt's taker is not ${maker}`);
    assert.equal(receiptStatus(rowOf(upgraded[3]), keys, maker), `NOT VERIFIED: the receipt's taker is not ${maker}`);
    const { taker_salt: _, ...bare } = upgraded[3].receipt;
    assert.equal(receiptStatus(rowOf(upgraded[3], { receipt: bare }), keys, taker), `NOT VERIFIED: the receipt's taker is not ${taker}`);
    assert.equal(receiptStatus(rowOf(upgraded[3], { receipt: bare, role: 'maker', fee: '0' }), keys, maker), 'verified #4');
  });
});

describe('cli fills: receipt status', () => {
  const keys = [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }];
  const r = vectors.receipts[0];
  const receipt = {
    journal_seq: 1,
    kind: 0 as const,
    payload: Buffer.from(r.payload_hex, 'hex').toString('base64'),
    hash: r.hash,
    key_id: r.key_id,
    signature: r.signature,
  };
  const row: RfqFillRow = {
    fill_id: '1',
    rfq_id: r.input.rfq_id,
    quote_id: r.input.quote_id,
    role: 'taker',
    side: 'buy',
    legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: '1.00000000' }],
    price: '13.25000000',
    fee: '0.04500000',
    filled_at: 1795000040,
    reverted: false,
    receipt,
    revert_receipt: null,
  };

  it('verified, or why not', () => {
    assert.equal(receiptStatus(row, keys), 'verified #1');
    assert.equal(receiptStatus({ ...row, price: '13.00000000' }, keys), "NOT VERIFIED: price differs from the fill's");
    assert.equal(receiptStatus({ ...row, receipt: null }, keys), 'no receipt');
    assert.equal(receiptStatus(row, []), "NOT VERIFIED: key e667e8d6b484d58c is not one of the exchange's keys");
  });
});
