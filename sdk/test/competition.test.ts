// Competitive RFQs (docs/spec/design.md 18) against the in-test server: what each method sends,
// how its answer is typed, acceptBest's choice per side, and the transcript checked online.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Keypair, NoBestQuoteError, RfqError, decodeSignatureBase64, encodeAcceptPayload, verifySignature } from '../src/index';
import { COMPETITIVE_QUOTES, COMPETITIVE_RFQ, DIRECTORY, SEED_RFQ, SIGNED_TRANSCRIPT, STATS, TRANSCRIPT_VECTORS, UNQUOTED_RFQ } from './fake-competition';
import { deskOnFakeServer } from './fake-desk';

const desk = deskOnFakeServer();
const lastCall = desk.lastCall;
const taker = Keypair.fromSeed(new Uint8Array(32).fill(5));
const PANEL = ['3o2hoWcfShnpk3jkVixn4DKxoyjNoMpAvPANtoXYxMTx', 'AqVptoBYaJFhzAm3W1NdAg8pEeacvLszUBAiuztzDsKS'];
const LEGS = [{ instrument: 'SOL-27DEC26-150-C', quantity: '10' }];

describe('LegworkClient: the competitive taker', () => {
  it('createRfq sends competition with its panel, {} for every quoter, and none for a seed RFQ', async () => {
    await desk.client.createRfq({ legs: LEGS, competition: { makers: PANEL } });
    assert.deepEqual(lastCall().params.competition, { makers: PANEL });
    await desk.client.createRfq({ legs: LEGS, competition: {} });
    assert.deepEqual(lastCall().params.competition, {});
    await desk.client.createRfq({ legs: LEGS, competition: { makers: undefined } });
    assert.deepEqual(lastCall().params.competition, {});
    await desk.client.createRfq({ legs: LEGS });
    assert.equal('competition' in lastCall().params, false);
  });

  it('acceptBest buys at the best ask and sells at the best bid, signed over that quote', async () => {
    for (const [side, quote] of [
      ['buy', COMPETITIVE_QUOTES[2]],
      ['sell', COMPETITIVE_QUOTES[1]],
    ] as const) {
      const result = await desk.client.acceptBest(COMPETITIVE_RFQ.rfq_id, side, { keypair: taker });
      const sent = lastCall().params;
      assert.equal(lastCall().method, 'rfq.accept');
      assert.equal(sent.quote_id, quote.quote_id, side);
      assert.equal(sent.side, side);
      assert.equal(result.quote.quote_id, quote.quote_id);
      assert.equal(result.best, true);
      assert.ok(sent.expires_at <= quote.expires_at && sent.expires_at >= Math.floor(Date.now() / 1000) + 29);
      const payload = encodeAcceptPayload({ rfqId: COMPETITIVE_RFQ.rfq_id, quoteId: quote.quote_id, taker: taker.publicKey, side, expiresAt: sent.expires_at });
      assert.ok(verifySignature(taker.publicKey, payload, decodeSignatureBase64(sent.taker_signature)!));
    }
  });

  it('acceptBest refuses, sending no accept, when nothing is best on the side or the RFQ is a seed one', async () => {
    const before = desk.server.calls.filter((c) => c.method === 'rfq.accept').length;
    for (const rfq of [UNQUOTED_RFQ, SEED_RFQ]) {
      for (const side of ['buy', 'sell'] as const) {
        await assert.rejects(desk.client.acceptBest(rfq.rfq_id, side, { keypair: taker }), (e: unknown) => {
          assert.ok(e instanceof NoBestQuoteError);
          assert.equal(e.rfqId, rfq.rfq_id);
          assert.match(e.message, rfq === SEED_RFQ ? /is not competitive/ : side === 'buy' ? /has no live ask/ : /has no live bid/);
          return true;
        });
      }
    }
    assert.equal(desk.server.calls.filter((c) => c.method === 'rfq.accept').length, before);
  });

  it('acceptBest without a key to sign with refuses', async () => {
    await assert.rejects(desk.client.acceptBest(COMPETITIVE_RFQ.rfq_id, 'buy'), /acceptBest signs the accept/);
  });

  it('makers gives the directory', async () => {
    assert.deepEqual(await desk.client.makers(), DIRECTORY);
    assert.deepEqual(lastCall(), { connection: desk.server.current.n, method: 'rfq.makers', params: {} });
  });
});

describe('LegworkClient: transcripts', () => {
  const key = { key_id: TRANSCRIPT_VECTORS.key_id, public_key: TRANSCRIPT_VECTORS.exchange_public_key, from: 0 };

  it('transcript sends rfq.transcript { rfq_id } and gives the signed transcript', async () => {
    assert.deepEqual(await desk.client.transcript(SIGNED_TRANSCRIPT.transcript.rfq_id), SIGNED_TRANSCRIPT);
    assert.deepEqual(lastCall().params, { rfq_id: SIGNED_TRANSCRIPT.transcript.rfq_id });
    await assert.rejects(desk.client.transcript('f'.repeat(32)), (e: unknown) => e instanceof RfqError && e.error === 'RFQ_NOT_FOUND');
  });

  it('verifiedTranscript checks it against GET /v1/exchange/keys of the connection’s host', async () => {
    desk.server.exchangeKeys = [key];
    const { signed, check } = await desk.client.verifiedTranscript(SIGNED_TRANSCRIPT.transcript.rfq_id);
    assert.deepEqual(signed, SIGNED_TRANSCRIPT);
    assert.deepEqual(check, { ok: true, transcript: SIGNED_TRANSCRIPT.transcript, hash: SIGNED_TRANSCRIPT.hash, key_id: SIGNED_TRANSCRIPT.key_id });
  });

  it('verifiedTranscript says which check fails under another exchange’s keys, and takes the keys given', async () => {
    desk.server.exchangeKeys = [{ ...key, public_key: PANEL[0] }];
    const online = await desk.client.verifiedTranscript(SIGNED_TRANSCRIPT.transcript.rfq_id);
    assert.equal(online.check.ok, false);
    assert.equal((online.check as { fault: string }).fault, 'key_id');
    const given = await desk.client.verifiedTranscript(SIGNED_TRANSCRIPT.transcript.rfq_id, { keys: TRANSCRIPT_VECTORS.exchange_public_key });
    assert.equal(given.check.ok, true);
  });
});

describe('LegworkClient: the competing maker', () => {
  it('cancelQuote and cancelQuotes send the quote id / nothing and give the result', async () => {
    const id = COMPETITIVE_QUOTES[0].quote_id;
    assert.deepEqual(await desk.client.cancelQuote(id), { quote_id: id, state: 'cancelled' });
    assert.deepEqual(lastCall().params, { quote_id: id });
    assert.equal(lastCall().method, 'rfq.maker.cancel_quote');
    await assert.rejects(desk.client.cancelQuote('ff'.repeat(32)), (e: unknown) => e instanceof RfqError && e.error === 'RFQ_NOT_FOUND');
    assert.deepEqual((await desk.client.cancelQuotes()).cancelled, [COMPETITIVE_QUOTES[0].quote_id, COMPETITIVE_QUOTES[2].quote_id]);
    assert.deepEqual(lastCall(), { connection: desk.server.current.n, method: 'rfq.maker.cancel_quotes', params: {} });
  });

  it('setProfile sends only the fields given and gives the whole profile; makerStats the own stats', async () => {
    assert.deepEqual(await desk.client.setProfile({ listed: true, name: 'Aster', cancel_on_disconnect: undefined }), {
      listed: true,
      name: 'Aster',
      cancel_on_disconnect: false,
    });
    assert.deepEqual(lastCall().params, { listed: true, name: 'Aster' });
    assert.deepEqual(await desk.client.setProfile({ cancel_on_disconnect: true }), { listed: true, name: 'Aster', cancel_on_disconnect: true });
    assert.deepEqual(await desk.client.makerStats(), STATS);
    assert.deepEqual(lastCall().params, {});
    assert.equal(lastCall().method, 'rfq.maker.stats');
  });
});
