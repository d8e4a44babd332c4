import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError, LegworkRpcError, RfqError, retryAfterMsOf, rpcErrorFrom } from '../src/index';

/** docs/spec/design.md section 16: refusals say when to retry, and the SDK hands it to the application. */
describe('retryAfterMs', () => {
  it('1005 RATE_LIMITED: from error.data.retry_after_ms', () => {
    const e = rpcErrorFrom({ code: 1005, message: 'slow down', data: { error: 'RATE_LIMITED', message: 'slow down', retry_after_ms: 250 } });
    assert.ok(e instanceof LegworkRpcError);
    assert.equal(e.retryAfterMs, 250);
    assert.equal(rpcErrorFrom({ code: 1002, message: 'x', data: { error: 'AUTH_INVALID_NONCE', message: 'x' } }).retryAfterMs, undefined);
  });

  it('RFQ_RATE_LIMITED: from error.data.retry_after_ms, kept in data', () => {
    const e = rpcErrorFrom({
      code: 1200,
      message: 'limited',
      data: { error: 'RFQ_RATE_LIMITED', message: 'limited', operation_id: 'op', retryable: true, retry_after_ms: 40 },
    });
    assert.ok(e instanceof RfqError);
    assert.equal(e.retryAfterMs, 40);
    assert.equal((e.data as { retry_after_ms?: number }).retry_after_ms, 40);
  });

  it('HTTP 429: from Retry-After, seconds or a date', () => {
    assert.equal(retryAfterMsOf('3'), 3000);
    assert.equal(retryAfterMsOf(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(retryAfterMsOf(null), undefined);
    assert.equal(retryAfterMsOf('soon'), undefined);
    assert.equal(new HttpError(429, 'x', undefined, 2000).retryAfterMs, 2000);
  });
});
