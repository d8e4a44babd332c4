import { RfqError } from '../../common/errors/app-error';
import { compileParams } from '../gateway/schema/compile';
import { METHODS } from '@legwork/protocol';

// The validator the gateway compiles from the declaration (the hand parser it replaced was tested here).
const parseAcceptParams = compileParams(METHODS['rfq.accept'].params, 'rfq');

const good = { quote_id: 'ab'.repeat(32), side: 'buy', expires_at: 1_795_000_000, taker_signature: 'x' };

function fault(params: Record<string, unknown>): RfqError {
  try {
    parseAcceptParams(params);
  } catch (error) {
    if (error instanceof RfqError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('parseAcceptParams', () => {
  it('reads the four params', () => {
    expect(parseAcceptParams(good)).toEqual({ quoteId: 'ab'.repeat(32), side: 'buy', expiresAt: 1_795_000_000, takerSignature: 'x' });
    expect(parseAcceptParams({ ...good, side: 'sell' }).side).toBe('sell');
  });

  it('refuses an unknown param first, naming it', () => {
    const e = fault({ extra: 1, quote_id: 'bad' });
    expect(e.code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(e.message).toMatch(/unknown field "extra"/);
  });

  it.each(['quote_id', 'side', 'expires_at', 'taker_signature'])('requires %s', (field) => {
    const params: Record<string, unknown> = { ...good };
    delete params[field];
    const e = fault(params);
    expect(e.code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(e.message).toBe(`${field} is required`);
  });

  it.each([
    ['quote_id', 'AB'.repeat(32)],
    ['quote_id', 'ab'.repeat(31)],
    ['quote_id', 7],
    ['side', 'BUY'],
    ['side', 0],
    ['expires_at', '1795000000'],
    ['expires_at', 1.5],
    ['expires_at', 2 ** 60],
    ['taker_signature', 12],
    ['taker_signature', null],
  ])('refuses %s = %j naming the field', (field, value) => {
    const e = fault({ ...good, [field]: value });
    expect(e.code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(e.retryable).toBe(false);
    expect(e.message.startsWith(field)).toBe(true);
  });
});
