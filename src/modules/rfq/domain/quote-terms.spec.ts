import { RfqError } from '../../../common/errors/app-error';
import { checkQuoteTerms, maxQuoteExpiresAt } from './quote-terms';

const NOW = 1_795_000_000;
const MAX = NOW + 3000;
const ID = '01935f3a8b2c7d4e8f00112233445566';

function code(terms: { bid?: bigint; ask?: bigint; issuedAt?: number; expiresAt?: number }, max = MAX): string {
  try {
    checkQuoteTerms({ bid: 1n, ask: 2n, issuedAt: NOW, expiresAt: NOW + 60, ...terms }, max, NOW, ID);
    return 'ok';
  } catch (error) {
    if (error instanceof RfqError) {
      expect(error.extras.rfqId).toBe(ID);
      return error.code;
    }
    throw error;
  }
}

describe('quote values and times (rfq.maker.respond rules 1 and 4)', () => {
  it('accepts bid <= ask of any sign', () => {
    expect(code({ bid: 5n, ask: 5n })).toBe('ok');
    expect(code({ bid: -7n, ask: -3n })).toBe('ok');
    expect(code({ bid: 6n, ask: 5n })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('needs issued_at < expires_at', () => {
    expect(code({ issuedAt: NOW + 60, expiresAt: NOW + 60 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(code({ issuedAt: NOW + 2, expiresAt: NOW + 1 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('limits the lifetime to 3600 s', () => {
    expect(code({ issuedAt: NOW - 1000, expiresAt: NOW + 2600 })).toBe('ok');
    expect(code({ issuedAt: NOW - 1001, expiresAt: NOW + 2600 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('refuses expires_at after max_quote_expires_at, never clamping', () => {
    expect(code({ expiresAt: MAX })).toBe('ok');
    expect(code({ expiresAt: MAX + 1 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('lets issued_at run at most 5 s ahead', () => {
    expect(code({ issuedAt: NOW + 5, expiresAt: NOW + 65 })).toBe('ok');
    expect(code({ issuedAt: NOW + 6, expiresAt: NOW + 65 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('a quote at or past its expires_at is RFQ_QUOTE_EXPIRED, after the range rules', () => {
    expect(code({ issuedAt: NOW - 10, expiresAt: NOW })).toBe('RFQ_QUOTE_EXPIRED');
    expect(code({ issuedAt: NOW - 10, expiresAt: NOW + 1 })).toBe('ok');
    expect(code({ bid: 3n, ask: 2n, issuedAt: NOW - 10, expiresAt: NOW - 1 })).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('max_quote_expires_at = min(created_at + 3600, expiry)', () => {
    expect(maxQuoteExpiresAt(NOW, NOW + 10_000)).toBe(NOW + 3600);
    expect(maxQuoteExpiresAt(NOW, NOW + 100)).toBe(NOW + 100);
  });
});
