// The desk's methods (docs/spec/design.md 15) against the in-test server: what each sends and how its answer is typed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MakerNotification, RfqError } from '../src/index';
import { RESPOND, deskOnFakeServer } from './fake-desk';

const desk = deskOnFakeServer();
const lastCall = desk.lastCall;

describe("LegworkClient: the taker's cancel", () => {
  it('cancelRfq sends rfq.cancel { rfq_id } and gives the cancel result; a refusal is an RfqError', async () => {
    const rfqId = 'a'.repeat(32);
    assert.deepEqual(await desk.client.cancelRfq(rfqId), { rfq_id: rfqId, state: 'expired', cancelled_at: 1_795_000_000 });
    assert.deepEqual(lastCall(), { connection: desk.server.current.n, method: 'rfq.cancel', params: { rfq_id: rfqId } });
    await assert.rejects(desk.client.cancelRfq('f'.repeat(32)), (e: unknown) => {
      assert.ok(e instanceof RfqError);
      assert.equal(e.error, 'RFQ_NOT_FOUND');
      assert.equal(e.rfqId, 'f'.repeat(32));
      assert.equal(e.method, 'rfq.cancel');
      return true;
    });
  });

  it('cancelAllRfqs sends rfq.cancel_all {} and gives the ids', async () => {
    assert.deepEqual(await desk.client.cancelAllRfqs(), { cancelled: ['a'.repeat(32), 'b'.repeat(32)] });
    assert.equal(lastCall().method, 'rfq.cancel_all');
    assert.deepEqual(lastCall().params, {});
  });
});

describe("LegworkClient: the maker's limits, check and protection", () => {
  it('setMakerLimits sends { limits } without undefined fields; getMakerLimits and resetProtection read the state', async () => {
    const limits = { max_open_quotes: 10, max_open_notional: '1000000', price_band_bps: 500, max_open_delta: { SOL: '100' }, max_open_vega: undefined };
    const result = await desk.client.setMakerLimits(limits);
    assert.deepEqual(lastCall().params, { limits: { max_open_quotes: 10, max_open_notional: '1000000', price_band_bps: 500, max_open_delta: { SOL: '100' } } });
    assert.equal(lastCall().method, 'rfq.maker.set_limits');
    assert.deepEqual(result.limits, { max_open_quotes: 10, max_open_notional: '1000000', price_band_bps: 500, max_open_delta: { SOL: '100' } });
    const read = await desk.client.getMakerLimits();
    assert.equal(lastCall().method, 'rfq.maker.get_limits');
    assert.deepEqual(lastCall().params, {});
    assert.equal(read.usage.open_quotes, 1);
    assert.deepEqual(read.usage.open_delta, { SOL: '0.5' });
    assert.equal(read.protection.frozen, false);
    await desk.client.resetProtection();
    assert.equal(lastCall().method, 'rfq.maker.reset_protection');
    assert.deepEqual(lastCall().params, {});
  });

  it('checkQuote sends the respond params as they are; a signature refusal carries the exchange payload and quote id', async () => {
    const params = { ...RESPOND };
    assert.deepEqual(await desk.client.checkQuote(params), { ok: true, quote_id: 'ee'.repeat(32), payload: 'AAEC' });
    assert.deepEqual(lastCall().params, params);
    assert.equal(lastCall().method, 'rfq.maker.check');
    await assert.rejects(desk.client.checkQuote({ ...params, maker_signature: 'bad' }), (e: unknown) => {
      assert.ok(e instanceof RfqError);
      assert.equal(e.error, 'RFQ_INVALID_SIGNATURE');
      assert.equal(e.payload, 'AAEC');
      assert.equal(e.quoteId, 'ee'.repeat(32));
      assert.equal(e.rfqId, params.rfq_id);
      return true;
    });
  });

  it('a protection event reaches notifications("rfq_maker") typed as such', async () => {
    await desk.client.subscribeMaker();
    const events = desk.client.notifications('rfq_maker');
    desk.server.notify(desk.server.current, 'rfq_maker', {
      account_seq: 3,
      event: 'protection',
      protection: { tripped_at: 1_795_000_100, until: 1_795_000_160, reason: 'max_fills 3 reached' },
    });
    const { value } = await events.next();
    const n = value as MakerNotification;
    assert.equal(n.event, 'protection');
    if (n.event !== 'protection') return;
    assert.equal(n.protection.until, 1_795_000_160);
    assert.equal(n.protection.reason, 'max_fills 3 reached');
    assert.equal(n.account_seq, 3);
    await events.return?.();
  });
});
