import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SignedTranscript, transcriptHash, transcriptPayload, verifyTranscript } from '../src/index';
import { loadVector } from './vectors';

const vectors = loadVector('transcripts.json');
const keys = [{ key_id: vectors.key_id, public_key: vectors.exchange_public_key, from: 0 }];
const signedOf = (c: any): SignedTranscript => ({
  transcript: c.transcript,
  payload: c.payload_base64,
  hash: c.hash,
  key_id: c.key_id,
  signature: c.signature,
});

describe('RFQ transcripts (vectors/transcripts.json)', () => {
  it('builds each payload and hash as the vectors do, and verifies each with the key or the keys list', () => {
    for (const c of vectors.cases) {
      const payload = transcriptPayload(c.transcript);
      assert.equal(Buffer.from(payload).toString('base64'), c.payload_base64);
      assert.equal(transcriptHash(payload), c.hash);
      assert.deepEqual(verifyTranscript(signedOf(c), vectors.exchange_public_key), { ok: true, transcript: c.transcript, hash: c.hash, key_id: c.key_id });
      assert.equal(verifyTranscript(signedOf(c), keys).ok, true);
    }
  });

  it('names the check a tampered transcript fails', () => {
    const c = vectors.cases[0];
    const cheaper = structuredClone(c.transcript);
    cheaper.accepted.price = '40';
    const check = (signed: SignedTranscript, key: Parameters<typeof verifyTranscript>[1] = keys) => verifyTranscript(signed, key);
    assert.deepEqual(check({ ...signedOf(c), transcript: cheaper }), {
      ok: false,
      fault: 'payload',
      problem: 'payload is not the canonical JSON of the transcript',
    });
    assert.equal((check({ ...signedOf(c), hash: '0'.repeat(64) }) as { fault: string }).fault, 'hash');
    assert.equal((check({ ...signedOf(c), key_id: 'ffffffffffffffff' }) as { fault: string }).fault, 'key_id');
    assert.equal((check({ ...signedOf(c), signature: vectors.cases[1].signature }) as { fault: string }).fault, 'signature');
  });
});
