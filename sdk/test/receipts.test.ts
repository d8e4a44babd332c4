import assert from 'node:assert/strict';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  type Receipt,
  ReceiptError,
  decodeReceipt,
  isTakerOf,
  takerCommitmentOf,
  takerProof,
  verifyJournalSegment,
  verifyReceipt,
  verifyTakerProof,
} from '../src/index';
import { loadVector } from './vectors';

const vectors = loadVector('receipts.json');
const keys = [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }];
const receiptOf = (r: any): Receipt => ({
  journal_seq: r.input.journal_seq,
  kind: r.input.kind,
  payload: Buffer.from(r.payload_hex, 'hex').toString('base64'),
  hash: r.hash,
  key_id: r.key_id,
  signature: r.signature,
});

describe('receipts (vectors/receipts.json)', () => {
  it('verifies every receipt of the vectors against the fill it is of', () => {
    for (const r of vectors.receipts) {
      const i = r.input;
      const decoded = verifyReceipt(receiptOf(r), {
        keys,
        fill: { fill_id: i.fill_id, side: i.side, price: i.price, fee: i.fee, filled_at: i.at, rfq_id: i.rfq_id, quote_id: i.quote_id, legs: i.legs },
      });
      assert.equal(decoded.version, 2);
      assert.equal(decoded.taker, null);
      assert.equal(decoded.takerCommitment, i.taker_commitment);
      assert.equal(decoded.maker, i.maker);
      assert.equal(decoded.prevHash, i.prev_hash);
      assert.equal(decoded.legs.length, i.legs.length);
    }
  });

  it("proves the taker: the commitment recomputes from the taker's copy (its salt), a maker's copy proves nothing", () => {
    for (const r of vectors.receipts) {
      const i = r.input;
      assert.equal(takerCommitmentOf(i.taker_salt, i.taker), i.taker_commitment);
      const takers = { ...receiptOf(r), taker_salt: i.taker_salt };
      assert.equal(isTakerOf(takers, i.taker), true);
      assert.equal(isTakerOf(takers, i.maker), false);
      verifyReceipt(takers, { keys, taker: i.taker });
      assert.throws(() => verifyReceipt(takers, { keys, taker: i.maker }), /taker is not/);
      // The maker's copy: no salt, so it ties the fill to no wallet.
      assert.equal(isTakerOf(receiptOf(r), i.taker), false);
      assert.throws(() => verifyReceipt(receiptOf(r), { keys, taker: i.taker }), /taker is not/);
      assert.throws(() => takerProof(receiptOf(r), i.taker), /no taker_salt/);
      // The proof a taker hands over, checked by anyone with the exchange's keys.
      const proof = JSON.parse(JSON.stringify(takerProof(takers, i.taker)));
      assert.equal(verifyTakerProof(proof, { keys }).takerCommitment, i.taker_commitment);
      assert.throws(() => verifyTakerProof({ ...proof, taker_salt: 'ab'.repeat(32) }, { keys }), /taker is not/);
    }
    // A revert commits with its fill's salt: the same salt proves both.
    const [fill, revert] = [vectors.receipts[1], vectors.receipts[2]];
    assert.equal(isTakerOf(receiptOf(revert), revert.input.taker, fill.input.taker_salt), true);
  });
});

describe('receipts (vectors/receipts.json): version 1 and decimals', () => {
  it('verifies a version 1 receipt (vectors version_1), which names its taker', () => {
    const v1 = vectors.version_1;
    const first = vectors.receipts[0].input;
    const receipt: Receipt = {
      journal_seq: 1,
      kind: 0,
      payload: Buffer.from(v1.payload_hex, 'hex').toString('base64'),
      hash: v1.hash,
      key_id: v1.key_id,
      signature: v1.signature,
    };
    const decoded = verifyReceipt(receipt, {
      keys,
      taker: first.taker,
      fill: { fill_id: first.fill_id, side: first.side, price: first.price, fee: first.fee, filled_at: first.at, rfq_id: first.rfq_id, legs: first.legs },
    });
    assert.equal(decoded.version, 1);
    assert.equal(decoded.taker, first.taker);
    assert.equal(decoded.takerCommitment, null);
    assert.equal(isTakerOf(receipt, first.maker), false);
    const bytes = Buffer.from(v1.payload_hex, 'hex');
    bytes[13] = 3;
    assert.throws(() => decodeReceipt(bytes), /version 3/);
  });

  it('accepts the 8-place decimals of /query/rfq-fills rows', () => {
    const r = vectors.receipts[0];
    verifyReceipt(receiptOf(r), { keys, fill: { fill_id: '1', side: 'buy', price: '13.25000000', fee: '0.04500000', filled_at: 1795000040, role: 'taker' } });
  });
});

describe('receipts (vectors/receipts.json): refusals and journal links', () => {
  it('refuses a receipt of another fill, a changed byte, a foreign key, another service', () => {
    const r = receiptOf(vectors.receipts[0]);
    const fill = { fill_id: '1', side: 'buy' as const, price: '13.25', fee: '0.045', filled_at: 1795000040 };
    assert.throws(() => verifyReceipt(r, { keys, fill: { ...fill, price: '13.26' } }), /price differs/);
    assert.throws(() => verifyReceipt(r, { keys, fill: { ...fill, fill_id: '2' } }), /fill_id differs/);
    const bytes = Buffer.from(r.payload, 'base64');
    bytes[210] ^= 1; // the price
    const payload = bytes.toString('base64');
    assert.throws(() => verifyReceipt({ ...r, payload }, { keys }), /hash/);
    const hash = createHash('sha256').update(bytes).digest('hex');
    assert.throws(() => verifyReceipt({ ...r, payload, hash }, { keys }), /signature does not verify/);
    // Signed by some other key that claims the exchange's key_id: refused.
    const other = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, 9)]),
      format: 'der',
      type: 'pkcs8',
    });
    const forged = sign(null, bytes, other).toString('base64');
    assert.throws(() => verifyReceipt({ ...r, payload, hash, signature: forged }, { keys }), /signature does not verify/);
    assert.throws(() => verifyReceipt(r, { keys: [] }), /not one of the exchange's keys/);
    assert.throws(() => verifyReceipt(r, { keys, serviceName: 'Other' }), /another service/);
    assert.throws(() => decodeReceipt(Buffer.alloc(10)), ReceiptError);
  });

  it('checks journal links: the vectors chain, a changed hash breaks the next link, a missing number is named', () => {
    const rows = vectors.receipts.map((r: any) => ({
      journal_seq: r.input.journal_seq,
      kind: r.input.kind,
      hash: r.hash,
      prev_hash: r.input.prev_hash,
      at: r.input.at,
    }));
    assert.deepEqual(verifyJournalSegment(rows), { ok: true, head: { journal_seq: 4, hash: vectors.receipts[3].hash } });
    const broken = rows.map((row: any, i: number) => (i === 1 ? { ...row, hash: 'f'.repeat(64) } : row));
    assert.deepEqual(verifyJournalSegment(broken), {
      ok: false,
      journal_seq: 3,
      problem: `prev_hash ${rows[2].prev_hash} is not the hash ${'f'.repeat(64)} of journal_seq 2`,
    });
    const gap = verifyJournalSegment([rows[0], rows[2]]);
    assert.equal(gap.ok, false);
    assert.equal(!gap.ok && gap.journal_seq, 2);
    // A segment continues from where the last one ended.
    assert.deepEqual(verifyJournalSegment(rows.slice(2), { journal_seq: 2, hash: rows[1].hash }), { ok: true, head: { journal_seq: 4, hash: rows[3].hash } });
  });
});
