import { AppError, RfqError, withoutStack } from './app-error';

describe('withoutStack', () => {
  it('makes the error as given, with no stack frames, and leaves the stack limit as it was', () => {
    const before = Error.stackTraceLimit;
    const error = withoutStack(() => new RfqError('RFQ_RATE_LIMITED', 'slow down'));
    expect(error).toBeInstanceOf(RfqError);
    expect(error.code).toBe('RFQ_RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('slow down');
    expect(error.stack?.split('\n')).toHaveLength(1);
    expect(Error.stackTraceLimit).toBe(before);
    // Errors made elsewhere keep their stacks.
    expect(new AppError('RATE_LIMITED', 'x').stack?.split('\n').length).toBeGreaterThan(1);
  });

  it('restores the stack limit when making the error throws', () => {
    const before = Error.stackTraceLimit;
    expect(() =>
      withoutStack(() => {
        throw new TypeError('boom');
      }),
    ).toThrow('boom');
    expect(Error.stackTraceLimit).toBe(before);
  });
});

describe('RfqError reason and retryable (docs/spec/design.md section 19)', () => {
  it("gets the code's first declared reason when the thrower names none", () => {
    expect(new RfqError('RFQ_NOT_FOUND', 'x').reason).toBe('rfq_not_found');
    expect(new RfqError('RFQ_STATE_CONFLICT', 'x', { reason: 'nonce_not_increasing' }).reason).toBe('nonce_not_increasing');
  });

  it('is not retryable for the kill switch, nor for a freeze only a reset ends; the other open limits are', () => {
    expect(new RfqError('RFQ_OPEN_LIMIT', 'x', { reason: 'max_open_quotes' }).retryable).toBe(true);
    expect(new RfqError('RFQ_OPEN_LIMIT', 'x', { reason: 'kill_switch' }).retryable).toBe(false);
    expect(new RfqError('RFQ_OPEN_LIMIT', 'x', { reason: 'maker_protection' }).retryable).toBe(true);
    expect(new RfqError('RFQ_OPEN_LIMIT', 'x', { reason: 'maker_protection', retryable: false }).retryable).toBe(false);
  });
});
