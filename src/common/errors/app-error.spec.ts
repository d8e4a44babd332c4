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
