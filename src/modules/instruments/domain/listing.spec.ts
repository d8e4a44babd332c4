import { formatRfq } from '@legwork/protocol';
import { loadVector } from '../../../../test/vectors';
import { MAX_STRIKES } from '@legwork/protocol';
import { planListing } from './listing';
import { invalidParamsMessage as problem } from '../../../../test/invalid-params';

const NOW = 1_790_000_000;
const EXPIRY = 1798358400; // 2026-12-27T08:00:00Z
const { strike_grids } = loadVector('instruments.json');

describe('planListing: the default grid (instruments.json)', () => {
  for (const v of strike_grids) {
    it(`spot ${v.spot_price}: ${v.instruments} instruments, ${v.first} .. ${v.last}`, () => {
      const plan = planListing({ asset: 'SOL', expiration: EXPIRY, spot_price: v.spot_price }, NOW);
      expect(plan.instruments).toHaveLength(v.instruments);
      expect(formatRfq(plan.instruments[0].strike)).toBe(v.first);
      expect(formatRfq(plan.instruments[plan.instruments.length - 1].strike)).toBe(v.last);
    });
  }

  it('lists each strike as a call then a put, named by symbol, with the UTC date of the expiry', () => {
    const plan = planListing({ asset: 'SOL', expiration: EXPIRY, spot_price: 150 }, NOW);
    expect(plan).toMatchObject({ asset: 'SOL', expiration: EXPIRY, utcDate: '2026-12-27' });
    expect(plan.instruments.slice(0, 3)).toEqual([
      { symbol: 'SOL-27DEC26-75-C', strike: 75_000_000n, kind: 'call' },
      { symbol: 'SOL-27DEC26-75-P', strike: 75_000_000n, kind: 'put' },
      { symbol: 'SOL-27DEC26-77.5-C', strike: 77_500_000n, kind: 'call' },
    ]);
  });
});

describe('planListing: given strikes', () => {
  it('lists exactly the given strikes, ascending, each once', () => {
    const plan = planListing({ asset: 'SOL', expiration: EXPIRY, spot_price: '150', strikes: ['300', '152.5', '300.00'] }, NOW);
    expect(plan.instruments.map((i) => i.symbol)).toEqual(['SOL-27DEC26-152.5-C', 'SOL-27DEC26-152.5-P', 'SOL-27DEC26-300-C', 'SOL-27DEC26-300-P']);
  });

  it('refuses bad strike lists', () => {
    const body = { asset: 'SOL', expiration: EXPIRY, spot_price: '150' };
    expect(problem(() => planListing({ ...body, strikes: [] }, NOW))).toMatch(/^strikes must not be empty/);
    expect(problem(() => planListing({ ...body, strikes: '150' }, NOW))).toMatch(/^strikes must be an array/);
    expect(problem(() => planListing({ ...body, strikes: ['150', 'abc'] }, NOW))).toMatch(/^strikes\[1\]: /);
    expect(problem(() => planListing({ ...body, strikes: ['0'] }, NOW))).toBe('strikes[0] must be greater than 0');
    expect(problem(() => planListing({ ...body, strikes: [150] }, NOW))).toBe('strikes[0] must be a decimal string');
    expect(problem(() => planListing({ ...body, strikes: Array.from({ length: MAX_STRIKES + 1 }, (_, i) => String(i + 1)) }, NOW))).toMatch(/at most/);
  });
});

describe('planListing: checks', () => {
  const body = { asset: 'SOL', expiration: EXPIRY, spot_price: '150' };

  it('needs an asset of the pattern', () => {
    expect(problem(() => planListing({ ...body, asset: undefined }, NOW))).toBe('asset must be a string');
    expect(problem(() => planListing({ ...body, asset: 'sol' }, NOW))).toMatch(/^asset must match/);
  });

  it('needs an integer expiration in the future', () => {
    expect(problem(() => planListing({ ...body, expiration: NOW }, NOW))).toBe('expiration must be in the future');
    expect(problem(() => planListing({ ...body, expiration: NOW - 1 }, NOW))).toBe('expiration must be in the future');
    expect(problem(() => planListing({ ...body, expiration: EXPIRY + 0.5 }, NOW))).toMatch(/^expiration must be an integer/);
    expect(problem(() => planListing({ ...body, expiration: String(EXPIRY) }, NOW))).toMatch(/^expiration must be an integer/);
    expect(planListing({ ...body, expiration: NOW + 1 }, NOW).expiration).toBe(NOW + 1);
  });

  it('needs a spot price > 0 as a decimal string or JSON number', () => {
    expect(problem(() => planListing({ ...body, spot_price: 0 }, NOW))).toBe('spot_price must be greater than 0');
    expect(problem(() => planListing({ ...body, spot_price: '0' }, NOW))).toBe('spot_price must be greater than 0');
    expect(problem(() => planListing({ ...body, spot_price: '1e3' }, NOW))).toMatch(/^spot_price: "1e3"/);
    expect(problem(() => planListing({ ...body, spot_price: undefined }, NOW))).toMatch(/^spot_price must be/);
  });

  it('refuses strikes whose symbols cannot be written', () => {
    expect(problem(() => planListing({ asset: 'ABCDEFGH', expiration: EXPIRY, spot_price: '1', strikes: ['123456789012.123456'] }, NOW))).toMatch(/32 bytes/);
    expect(problem(() => planListing({ ...body, spot_price: '9000000000000' }, NOW))).toMatch(/spot_price is too large|32 bytes/);
  });
});
