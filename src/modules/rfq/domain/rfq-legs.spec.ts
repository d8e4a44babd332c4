import { RfqError } from '../../../common/errors/app-error';
import type { Instrument } from '../../instruments/instrument';
import { payloadLegs, resolveLegs } from './rfq-legs';

const NOW = 1_790_000_000;
const EXPIRY = 1_798_358_400; // 27 Dec 2026 08:00 UTC

function instrument(symbol: string, changes: Partial<Instrument> = {}): Instrument {
  const [asset, , strike, cp] = symbol.split('-');
  return {
    symbol,
    asset,
    strike: BigInt(Math.round(Number(strike) * 1e6)),
    kind: cp === 'C' ? 'call' : 'put',
    expiry: EXPIRY,
    paused: false,
    settled: false,
    settlementPrice: null,
    createdAt: NOW - 100,
    ...changes,
  };
}

const book = new Map<string, Instrument>(
  [
    instrument('SOL-27DEC26-150-C'),
    instrument('SOL-27DEC26-140-P'),
    instrument('SOL-27DEC26-160-C'),
    instrument('SOL-28DEC26-150-C', { expiry: EXPIRY + 86400 }),
    instrument('BTC-27DEC26-90000-C'),
    instrument('SOL-27DEC26-170-C', { paused: true }),
    instrument('SOL-27DEC26-180-C', { settled: true, settlementPrice: 1n }),
    instrument('SOL-01JAN26-150-C', { expiry: NOW }),
    // A second symbol for the terms of SOL-27DEC26-150-C (cannot happen with canonical symbols; the rule still holds).
    instrument('SOL-27DEC26-150.0-C', { strike: 150_000_000n }),
  ].map((i) => [i.symbol, i]),
);
const lookup = (symbol: string) => book.get(symbol);
const q = (instrument: string, quantity = 1_000_000n) => ({ instrument, quantity });

function failure(legs: Array<{ instrument: string; quantity: bigint }>): { code: string; message: string; retryable: boolean } {
  try {
    resolveLegs(legs, lookup, NOW);
  } catch (error) {
    if (error instanceof RfqError) return { code: error.code, message: error.message, retryable: error.retryable };
    throw error;
  }
  throw new Error('resolved');
}

describe('legs against the instrument view', () => {
  it('resolves tradable legs of one asset and expiry, in the taker order', () => {
    const resolved = resolveLegs([q('SOL-27DEC26-160-C', -1_000_000n), q('SOL-27DEC26-140-P', 2_500_000n)], lookup, NOW);
    expect(resolved.asset).toBe('SOL');
    expect(resolved.expiry).toBe(EXPIRY);
    expect(payloadLegs(resolved)).toEqual([
      { symbol: 'SOL-27DEC26-160-C', strike: 160_000_000n, kind: 'call', quantity: -1_000_000n },
      { symbol: 'SOL-27DEC26-140-P', strike: 140_000_000n, kind: 'put', quantity: 2_500_000n },
    ]);
  });

  it.each([
    ['unknown', [q('SOL-27DEC26-150-C'), q('SOL-27DEC26-999-C')], 'legs[1]', 'not a listed'],
    ['settled', [q('SOL-27DEC26-180-C')], 'legs[0]', 'settled'],
    ['expired', [q('SOL-01JAN26-150-C')], 'legs[0]', 'expired'],
    ['a duplicate symbol', [q('SOL-27DEC26-150-C'), q('SOL-27DEC26-140-P'), q('SOL-27DEC26-150-C', -1n)], 'legs[2]', 'repeats legs[0]'],
    ['duplicate terms', [q('SOL-27DEC26-150-C'), q('SOL-27DEC26-150.0-C')], 'legs[1]', 'same terms as legs[0]'],
    ['another asset', [q('SOL-27DEC26-150-C'), q('BTC-27DEC26-90000-C')], 'legs[1]', 'asset'],
    ['another expiry', [q('SOL-27DEC26-150-C'), q('SOL-28DEC26-150-C')], 'legs[1]', 'expiry'],
  ])('%s is RFQ_INVALID_INSTRUMENT naming the leg, not retryable', (_name, legs, index, words) => {
    const f = failure(legs);
    expect(f.code).toBe('RFQ_INVALID_INSTRUMENT');
    expect(f.message).toContain(index);
    expect(f.message).toContain(words);
    expect(f.retryable).toBe(false);
  });

  it('a paused leg is retryable', () => {
    expect(failure([q('SOL-27DEC26-150-C'), q('SOL-27DEC26-170-C')])).toEqual({
      code: 'RFQ_INVALID_INSTRUMENT',
      message: expect.stringContaining('legs[1]'),
      retryable: true,
    });
  });

  it('reports a lasting fault before a paused leg', () => {
    const f = failure([q('SOL-27DEC26-170-C'), q('SOL-27DEC26-999-C')]);
    expect(f.message).toContain('legs[1]');
    expect(f.retryable).toBe(false);
  });

  it('an instrument is expired at its expiry second', () => {
    expect(() => resolveLegs([q('SOL-27DEC26-150-C')], lookup, EXPIRY - 1)).not.toThrow();
    expect(() => resolveLegs([q('SOL-27DEC26-150-C')], lookup, EXPIRY)).toThrow(/expired/);
  });
});
