import type { RfqError } from '../../../common/errors/app-error';
import { LimitsInvalid, effectiveLimits, limitsDocument, parseLimits } from './maker-limits';
import { checkOpenLimits, checkQuoteLimits, protectionTrip, quoteExposure } from './quote-exposure';

const M = 1_000_000n;

describe('maker limits document', () => {
  it('parses and writes back the canonical document', () => {
    const doc = {
      max_open_quotes: 0,
      max_open_notional: '1000.5',
      max_quote_notional: '10',
      max_open_delta: { SOL: '2', BTC: '0.5' },
      max_open_vega: { SOL: '100' },
      price_band_bps: 250,
      protection: { window_seconds: 60, max_fills: 3, max_fill_notional: '5000', max_fill_delta: { SOL: '4' }, frozen_seconds: 0 },
    };
    const parsed = parseLimits(doc);
    expect(parsed.maxOpenQuotes).toBe(0);
    expect(parsed.maxOpenDelta).toEqual({ BTC: 500_000n, SOL: 2n * M });
    expect(limitsDocument(parsed)).toEqual({ ...doc, max_open_delta: { BTC: '0.5', SOL: '2' } });
    expect(limitsDocument(parseLimits({}))).toEqual({});
  });

  it.each([
    [[], 'limits must be an object', false],
    [{ max_open_quotes: 2 ** 31 }, 'limits.max_open_quotes must be an integer', false],
    [{ max_open_notional: '01' }, 'limits.max_open_notional must be a canonical', true],
    [{ max_open_delta: { SOL: 1 } }, 'limits.max_open_delta.SOL must be an RfqDecimal string', false],
    [{ protection: { window_seconds: 1, frozen_seconds: 0, extra: 1 } }, 'limits.protection.extra is not a field', false],
  ])('refuses %j naming the field', (value, message, precision) => {
    try {
      parseLimits(value);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(LimitsInvalid);
      expect((error as LimitsInvalid).message).toContain(message);
      expect((error as LimitsInvalid).precision).toBe(precision);
    }
  });

  it('takes the stricter of the maker and the ceiling, field by field', () => {
    const maker = parseLimits({ max_open_quotes: 5, max_open_delta: { SOL: '3' }, protection: { window_seconds: 10, max_fills: 4, frozen_seconds: 30 } });
    const admin = parseLimits({
      max_open_quotes: 9,
      max_open_notional: '7',
      max_open_delta: { SOL: '2', ETH: '1' },
      protection: { window_seconds: 60, max_fill_notional: '1', frozen_seconds: 0 },
    });
    expect(effectiveLimits(maker, admin)).toEqual({
      maxOpenQuotes: 5,
      maxOpenNotional: 7n * M,
      maxOpenDelta: { SOL: 2n * M, ETH: M },
      protection: { windowSeconds: 60, maxFills: 4, maxFillNotional: M, frozenSeconds: 0 },
    });
    expect(effectiveLimits(maker, {})).toEqual(maker);
  });
});

describe('quote limits', () => {
  const code = (f: () => void) => {
    try {
      f();
      return null;
    } catch (error) {
      return (error as RfqError).code;
    }
  };
  // Two contracts of a 10.0 mark on an index of 150: notional 300, mark 20.
  const q = quoteExposure('SOL', [{ quantity: 2n * M, index: 150n * M, mark: 10n * M, delta: 500_000n, vega: 17n * M }]);

  it('measures a quote exactly', () => {
    expect(q).toMatchObject({ notional: 300n * M, delta: M, vega: 34n * M });
    expect(q.mark12).toBe(20n * M * M);
  });

  it('price band: the farther side at most notional * bps / 10000 from the mark (300 * 100 / 10000 = 3)', () => {
    const band = parseLimits({ price_band_bps: 100 });
    expect(code(() => checkQuoteLimits(band, q, { bid: 17n * M, ask: 23n * M }, 'r'))).toBeNull();
    expect(code(() => checkQuoteLimits(band, q, { bid: 17n * M - 1n, ask: 20n * M }, 'r'))).toBe('RFQ_PRICE_TOLERANCE');
    expect(code(() => checkQuoteLimits(band, q, { bid: 20n * M, ask: 23n * M + 1n }, 'r'))).toBe('RFQ_PRICE_TOLERANCE');
    expect(code(() => checkQuoteLimits(parseLimits({ max_quote_notional: '300' }), q, { bid: 0n, ask: 0n }, 'r'))).toBeNull();
    expect(code(() => checkQuoteLimits(parseLimits({ max_quote_notional: '299.999999' }), q, { bid: 0n, ask: 0n }, 'r'))).toBe('RFQ_SIZE_INVALID');
  });

  it('open limits after adding the quote: at the limit passes, above is RFQ_OPEN_LIMIT', () => {
    const usage = { openQuotes: 1, openNotional: 100n * M, openDelta: { SOL: M }, openVega: { SOL: 0n } };
    expect(code(() => checkOpenLimits(parseLimits({ max_open_quotes: 2, max_open_notional: '400', max_open_delta: { SOL: '2' } }), usage, q, 'r'))).toBeNull();
    expect(code(() => checkOpenLimits(parseLimits({ max_open_quotes: 1 }), usage, q, 'r'))).toBe('RFQ_OPEN_LIMIT');
    expect(code(() => checkOpenLimits(parseLimits({ max_open_notional: '399.999999' }), usage, q, 'r'))).toBe('RFQ_OPEN_LIMIT');
    expect(code(() => checkOpenLimits(parseLimits({ max_open_delta: { SOL: '1.999999', ETH: '0' } }), usage, q, 'r'))).toBe('RFQ_OPEN_LIMIT');
    expect(code(() => checkOpenLimits(parseLimits({ max_open_vega: { ETH: '0' } }), usage, q, 'r'))).toBeNull();
  });

  it('protection trips strictly above a threshold, naming it', () => {
    const p = parseLimits({ protection: { window_seconds: 60, max_fills: 2, max_fill_delta: { SOL: '1' }, frozen_seconds: 5 } }).protection!;
    expect(protectionTrip(p, { fills: 2, notional: 0n, delta: { SOL: M } })).toBeNull();
    expect(protectionTrip(p, { fills: 3, notional: 0n, delta: {} })).toBe('max_fills 2: 3 fills in 60 s');
    expect(protectionTrip(p, { fills: 1, notional: 0n, delta: { SOL: M + 1n } })).toBe('max_fill_delta.SOL 1: 1.000001 delta filled in 60 s');
  });
});
