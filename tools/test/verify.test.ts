// node:test over verify-journal's walk and the fills' receipt status: `npm run test:tools`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
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
