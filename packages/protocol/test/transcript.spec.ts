import { loadVector } from '../../../test/vectors';
import { addOrderToS } from './malleate';
import {
  type RfqTranscript,
  type SignedTranscript,
  canonicalJson,
  encodeWallet,
  fromBase64,
  keyIdOf,
  publicKeyFromSeed,
  signEd25519,
  toBase64,
  transcriptHash,
  transcriptPayload,
  verifyTranscript,
} from '../src';

const vectors = loadVector('transcripts.json');
const seed = Buffer.from(vectors.exchange_seed_hex, 'hex');
const exchangeKey: string = vectors.exchange_public_key;
const keys = [{ key_id: vectors.key_id, public_key: exchangeKey, from: 0 }];
const cases = vectors.cases.map((c: any) => [c.name, c]) as [string, any][];

/** The vector's case as `rfq.transcript` answers it. */
function signedOf(c: any): SignedTranscript {
  return { transcript: c.transcript, payload: c.payload_base64, hash: c.hash, key_id: c.key_id, signature: c.signature };
}

/** A deep copy of the case's transcript, changed by `edit`, signed again (or not) by the exchange key. */
function edited(c: any, edit: (t: any) => void, resign: boolean): SignedTranscript {
  const transcript = structuredClone(c.transcript) as RfqTranscript;
  edit(transcript);
  if (!resign) return { ...signedOf(c), transcript };
  const payload = transcriptPayload(transcript);
  return { transcript, payload: toBase64(payload), hash: transcriptHash(payload), key_id: c.key_id, signature: toBase64(signEd25519(seed, payload)) };
}

describe('RFQ transcript (vectors/transcripts.json)', () => {
  it('the key of the vectors is that of receipts.json', () => {
    const pub = publicKeyFromSeed(seed);
    expect(encodeWallet(pub)).toBe(exchangeKey);
    expect(keyIdOf(pub)).toBe(vectors.key_id);
    expect(loadVector('receipts.json').exchange_public_key).toBe(exchangeKey);
  });

  describe.each(cases)('%s', (_name, c) => {
    it('builds the payload byte for byte, hashes and signs it as the vector does', () => {
      const payload = transcriptPayload(c.transcript);
      expect(toBase64(payload)).toBe(c.payload_base64);
      expect(Buffer.from(payload).toString('utf8')).toBe(canonicalJson(c.transcript));
      expect(transcriptHash(payload)).toBe(c.hash);
      expect(toBase64(signEd25519(seed, payload))).toBe(c.signature);
    });

    it('verifies with the public key (base58 or bytes) and with the exchange keys list', () => {
      for (const key of [exchangeKey, publicKeyFromSeed(seed), keys]) {
        expect(verifyTranscript(signedOf(c), key)).toEqual({ ok: true, transcript: c.transcript, hash: c.hash, key_id: c.key_id });
      }
    });

    it('a transcript with its keys in another order still verifies (the payload is canonical)', () => {
      const reversed = Object.fromEntries(Object.entries(c.transcript).reverse()) as unknown as RfqTranscript;
      expect(verifyTranscript({ ...signedOf(c), transcript: reversed }, exchangeKey).ok).toBe(true);
    });

    it.each([
      ['a price changed', (t: any) => (t.quotes[0].ask = '0.01')],
      ['a quote dropped', (t: any) => t.quotes.pop()],
      ['an end changed', (t: any) => (t.quotes[0].end = 'accepted')],
      ['the panel changed', (t: any) => (t.makers = t.makers ? null : [t.quotes[0].maker])],
      ['a time changed', (t: any) => (t.closed_at_ms += 1)],
    ])('%s under the same signature: payload', (_what, edit) => {
      const check = verifyTranscript(edited(c, edit, false), exchangeKey);
      expect(check).toMatchObject({ ok: false, fault: 'payload' });
    });

    it('a payload that is not the canonical bytes (whitespace, other order), even if signed: payload', () => {
      const loose = Buffer.from(JSON.stringify(c.transcript, null, 1), 'utf8');
      const signed = { ...signedOf(c), payload: loose.toString('base64'), hash: transcriptHash(loose), signature: toBase64(signEd25519(seed, loose)) };
      expect(verifyTranscript(signed, exchangeKey)).toMatchObject({ ok: false, fault: 'payload' });
      expect(verifyTranscript({ ...signedOf(c), payload: c.payload_base64.slice(0, -4) }, exchangeKey)).toMatchObject({ ok: false, fault: 'payload' });
      expect(verifyTranscript({ ...signedOf(c), payload: 'not base64!' }, exchangeKey)).toMatchObject({ ok: false, fault: 'payload' });
    });

    it('a wrong hash: hash', () => {
      const hash = (c.hash[0] === '0' ? '1' : '0') + c.hash.slice(1);
      expect(verifyTranscript({ ...signedOf(c), hash }, exchangeKey)).toMatchObject({ ok: false, fault: 'hash' });
    });

    it("another key, or a key_id that is not the key's: key_id", () => {
      const other = encodeWallet(publicKeyFromSeed(Buffer.alloc(32, 7)));
      expect(verifyTranscript(signedOf(c), other)).toMatchObject({ ok: false, fault: 'key_id' });
      expect(verifyTranscript({ ...signedOf(c), key_id: '0000000000000000' }, exchangeKey)).toMatchObject({ ok: false, fault: 'key_id' });
      expect(verifyTranscript({ ...signedOf(c), key_id: '0000000000000000' }, keys)).toMatchObject({ ok: false, fault: 'key_id' });
      expect(verifyTranscript(signedOf(c), 'not-a-key')).toMatchObject({ ok: false, fault: 'key_id' });
    });

    it('a signature of something else, by another key, or malleated: signature', () => {
      const sig = fromBase64(c.signature)!;
      const flipped = Uint8Array.from(sig, (b, i) => (i === 5 ? b ^ 1 : b));
      const otherSeed = Buffer.alloc(32, 9);
      const byOther = toBase64(signEd25519(otherSeed, fromBase64(c.payload_base64)!));
      for (const signature of [toBase64(flipped), byOther, toBase64(addOrderToS(sig)), '', 'AAAA']) {
        expect(verifyTranscript({ ...signedOf(c), signature }, exchangeKey)).toMatchObject({ ok: false, fault: 'signature' });
      }
    });

    it('a transcript re-signed by the exchange after a change verifies (the signature, not the vector, is the proof)', () => {
      const check = verifyTranscript(
        edited(c, (t) => (t.closed_at_ms += 1), true),
        exchangeKey,
      );
      expect(check.ok).toBe(true);
    });
  });

  it('an object that is not a transcript of version 1, or has no canonical form: transcript', () => {
    const c = vectors.cases[0];
    for (const edit of [(t: any) => (t.kind = 'legwork.receipt'), (t: any) => (t.version = 2), (t: any) => (t.closed_at_ms = 1.5)]) {
      expect(verifyTranscript(edited(c, edit, false), exchangeKey)).toMatchObject({ ok: false, fault: 'transcript' });
    }
    expect(verifyTranscript({ ...signedOf(c), transcript: null as never }, exchangeKey)).toMatchObject({ ok: false, fault: 'transcript' });
    expect(verifyTranscript(null as never, exchangeKey)).toMatchObject({ ok: false, fault: 'transcript' });
  });
});
