import {
  LIMIT_FIELDS,
  effectiveLimits,
  fieldsFromLimits,
  formatLimit,
  limitsFromFields,
  makerLimitsBody,
  parseAssetAmounts,
  parseMakerLimitsView,
} from '../../console/src/maker-limits';

/** The console's one reading and writing of the maker-limits contract (docs/spec/design.md section 15). */
describe('console maker limits', () => {
  it('reads a GET answer tolerantly: numbers or strings for decimals, null or absent as no limit, missing blocks as zeros', () => {
    const view = parseMakerLimitsView({
      account_id: '12',
      limits: { max_open_quotes: 5, max_open_notional: 1000.5, max_quote_notional: null, max_open_delta: { SOL: '3', ETH: {} }, surprise: true },
      admin_limits: { price_band_bps: '250', protection: { window_seconds: 60, frozen_seconds: 0, max_fill_delta: { SOL: 4 } } },
      protection: { frozen: true, until: 1900000000 },
    });
    expect(view).toEqual({
      account_id: 12,
      limits: { max_open_quotes: 5, max_open_notional: '1000.5', max_open_delta: { SOL: '3' } },
      admin_limits: { price_band_bps: 250, protection: { window_seconds: 60, frozen_seconds: 0, max_fill_delta: { SOL: '4' } } },
      usage: { open_quotes: 0, open_notional: '0', open_delta: {}, open_vega: {} },
      protection: { frozen: true, until: 1900000000, window: { fills: 0, notional: '0', delta: {} } },
    });
    expect(parseMakerLimitsView(null).limits).toEqual({});
  });

  it('in force is the stricter of the two, field by field and asset by asset', () => {
    expect(
      effectiveLimits(
        { max_open_quotes: 10, max_open_notional: '100.5', max_open_delta: { SOL: '5', ETH: '1' } },
        { max_open_quotes: 0, max_open_notional: '200', max_open_delta: { SOL: '2', BTC: '0.1' }, price_band_bps: 300 },
      ),
    ).toEqual({ max_open_quotes: 0, max_open_notional: '100.5', max_open_delta: { BTC: '0.1', ETH: '1', SOL: '2' }, price_band_bps: 300 });
    expect(formatLimit({}, LIMIT_FIELDS[0])).toBe('—');
  });

  it('the form round-trips the limits and sends { limits }; an empty field is no limit; a bad field is named', () => {
    const limits = {
      max_open_quotes: 0,
      max_quote_notional: '5000',
      max_open_vega: { SOL: '12.5', ETH: '3' },
      protection: { window_seconds: 60, max_fills: 3, max_fill_notional: '900', max_fill_delta: { SOL: '8' }, frozen_seconds: 0 },
    };
    const fields = fieldsFromLimits(limits);
    expect(fields).toMatchObject({ max_open_quotes: '0', max_open_notional: '', max_open_vega: 'SOL=12.5, ETH=3', 'protection.max_fill_delta': 'SOL=8' });
    expect(makerLimitsBody(limitsFromFields(fields))).toEqual({ limits });
    expect(limitsFromFields({})).toEqual({});
    expect(() => limitsFromFields({ max_open_quotes: '-1' })).toThrow('Open quotes');
    expect(() => limitsFromFields({ max_open_notional: '1e6' })).toThrow('Open notional');
    expect(() => limitsFromFields({ 'protection.max_fills': '3' })).toThrow('window and a frozen time');
    expect(() => parseAssetAmounts('SOL=1, eth=2', 'Open delta')).toThrow('"eth=2"');
    expect(parseAssetAmounts(' SOL : 1 ,, ', 'x')).toEqual({ SOL: '1' });
  });
});
