import { compileParams } from '../gateway/schema/compile';
import { invalidParamsMessage as problem } from '../../../test/invalid-params';
import { METHODS as MARKET_METHODS } from '@legwork/protocol';

// The validator the gateway compiles from the declaration (the hand parser it replaced, instruments/domain/inputs.ts, was tested here).
const parseListParams = compileParams(MARKET_METHODS['public/get_instruments'].params, 'public');
const parseConfigParams = compileParams(MARKET_METHODS['public/get_market_config'].params, 'public');

describe('public/get_instruments params', () => {
  it('takes asset, expiry and include_settled, each optional', () => {
    expect(parseListParams({})).toEqual({});
    expect(parseListParams({ asset: 'SOL', expiry: 1798358400, include_settled: true })).toEqual({ asset: 'SOL', expiry: 1798358400, includeSettled: true });
  });

  it('refuses unknown and ill-typed params', () => {
    expect(problem(() => parseListParams({ assets: 'SOL' }))).toBe('unknown param assets');
    expect(problem(() => parseListParams({ asset: 1 }))).toBe('asset must be a string');
    expect(problem(() => parseListParams({ expiry: '1' }))).toMatch(/^expiry must be/);
    expect(problem(() => parseListParams({ include_settled: 'true' }))).toBe('include_settled must be a boolean');
  });
});

describe('public/get_market_config params', () => {
  it('takes none', () => {
    expect(parseConfigParams({})).toEqual({});
    expect(problem(() => parseConfigParams({ asset: 'SOL' }))).toBe('unknown param asset');
  });
});
