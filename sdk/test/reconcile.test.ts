// Quotes a desk can reconcile (docs/spec/design.md 19) against the in-test server: the typed `reason`,
// updateLimits / killSwitch, makerQuotes, and the automatic wait on a rate limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LegworkClient, LegworkRpcError, RfqError, type RfqErrorReason, isRateLimited } from '../src/index';
import { withRateLimitRetry } from '../src/rate-limit';
import { RESPOND, deskOnFakeServer, fast } from './fake-desk';
import { MAKER_QUOTE } from './fake-server';

const desk = deskOnFakeServer();
const lastCall = desk.lastCall;

describe('RfqError.reason', () => {
  it('carries the reason the server gave, typed as the contract’s reasons', async () => {
    await assert.rejects(desk.client.respond(RESPOND), (e: unknown) => {
      assert.ok(e instanceof RfqError);
      assert.equal(e.error, 'RFQ_STATE_CONFLICT');
      const reason: RfqErrorReason | (string & {}) = e.reason;
      assert.equal(reason, 'quoted_by_another');
      return true;
    });
  });

  it('is the empty string from a server that sends none', async () => {
    await assert.rejects(desk.client.getRfq('a'.repeat(32)), (e: unknown) => e instanceof RfqError && e.reason === '' && e.error === 'RFQ_NOT_FOUND');
  });
});

describe('LegworkClient: updateLimits and killSwitch', () => {
  it('updateLimits keeps the fields it is not given, replaces those given and drops those set to null', async () => {
    desk.server.limits = { max_open_quotes: 5, max_open_notional: '1000', max_open_delta: { SOL: '3' } };
    const result = await desk.client.updateLimits({ max_open_notional: '2000', max_open_delta: null, price_band_bps: 50 });
    assert.deepEqual(lastCall(), {
      connection: desk.server.current.n,
      method: 'rfq.maker.set_limits',
      params: { limits: { max_open_quotes: 5, max_open_notional: '2000', price_band_bps: 50 } },
    });
    assert.deepEqual(result.limits, { max_open_quotes: 5, max_open_notional: '2000', price_band_bps: 50 });
  });

  it('killSwitch sets max_open_quotes 0 and keeps every other limit', async () => {
    desk.server.limits = { max_open_quotes: 5, max_open_notional: '1000', protection: { window_seconds: 60, max_fills: 3, frozen_seconds: 0 } };
    await desk.client.killSwitch();
    assert.deepEqual(desk.server.limits, {
      max_open_quotes: 0,
      max_open_notional: '1000',
      protection: { window_seconds: 60, max_fills: 3, frozen_seconds: 0 },
    });
    await desk.client.updateLimits({ max_open_quotes: null });
    assert.deepEqual(desk.server.limits, { max_open_notional: '1000', protection: { window_seconds: 60, max_fills: 3, frozen_seconds: 0 } });
  });
});

describe('LegworkClient: makerQuotes', () => {
  it('sends rfq.maker.quotes with the params given (none absent) and gives the page', async () => {
    assert.deepEqual(await desk.client.makerQuotes(), { items: [MAKER_QUOTE] });
    assert.deepEqual(lastCall().params, {});
    const page = await desk.client.makerQuotes({ state: 'all', limit: 1, after: undefined });
    assert.deepEqual(lastCall().params, { state: 'all', limit: 1 });
    assert.equal(page.next_cursor, MAKER_QUOTE.quote_id);
    assert.equal(page.items[0].state, 'live');
  });
});

describe('LegworkClient: rate limits', () => {
  it('waits retry_after_ms and sends again on RATE_LIMITED and RFQ_RATE_LIMITED (on by default)', async () => {
    for (const error of ['RATE_LIMITED', 'RFQ_RATE_LIMITED']) {
      const started = Date.now();
      assert.deepEqual(await desk.client.call('limited', { key: `default-${error}`, times: 2, error, wait: 60 }), { attempts: 3 });
      assert.ok(Date.now() - started >= 110, 'waited twice');
    }
  });

  it('throws the refusal when turned off, after maxRetries, or when the wait is above maxWaitMs', async () => {
    const off = await LegworkClient.connect(desk.server.url, { ...fast, rateLimitRetry: false });
    const few = await LegworkClient.connect(desk.server.url, { ...fast, rateLimitRetry: { maxRetries: 1, maxWaitMs: 100 } });
    try {
      const refused = (e: unknown) => isRateLimited(e) && e instanceof LegworkRpcError && e.retryAfterMs === 20;
      await assert.rejects(off.call('limited', { key: 'off', times: 1, error: 'RATE_LIMITED', wait: 20 }), refused);
      await assert.rejects(few.call('limited', { key: 'few', times: 2, error: 'RFQ_RATE_LIMITED', wait: 20 }), refused);
      await assert.rejects(few.call('limited', { key: 'long', times: 1, error: 'RATE_LIMITED', wait: 500 }), (e: unknown) => isRateLimited(e));
    } finally {
      await off.close();
      await few.close();
    }
  });

  it('retries nothing else', async () => {
    let calls = 0;
    const failing = () => {
      calls += 1;
      return Promise.reject(new LegworkRpcError(1200, 'no', { error: 'RFQ_NOT_READY', retryable: true }));
    };
    await assert.rejects(withRateLimitRetry(failing, { maxRetries: 3, maxWaitMs: 1000 }, () => Promise.resolve()));
    assert.equal(calls, 1);
  });
});
