// node:test over the reference maker's pricing (pure): `npm run test:tools`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ceilDiv, floorDiv } from '@legwork/protocol';
import { type Instrument, MICRO, formatRfq } from '@legwork/sdk';
import { parseLeg, parseArgs, wsUrlOf } from '../src/common';
import { DEFAULT_POLICY, type Freshness, priceRfq } from '../src/maker/pricing';

const NOW = 1_800_000_000;
const EXPIRY = NOW + 7 * 86_400;

function instrument(symbol: string, mark: string | null, changes: Partial<Instrument> = {}): Instrument {
  return {
    symbol,
    asset: 'SOL',
    strike: '150',
    kind: 'call',
    expiry: EXPIRY,
    paused: false,
    settled: false,
    settlement_price: null,
    created_at: NOW - 100,
    mark_price: mark,
    iv: '0.8',
    ...changes,
  };
}

const book = new Map<string, Instrument>([
  ['SOL-A-150-C', instrument('SOL-A-150-C', '6.586449')],
  ['SOL-A-160-C', instrument('SOL-A-160-C', '2.940873', { strike: '160' })],
  ['SOL-A-75-P', instrument('SOL-A-75-P', '0', { strike: '75', kind: 'put' })],
  ['SOL-A-NOMARK', instrument('SOL-A-NOMARK', null)],
  ['SOL-A-PAUSED', instrument('SOL-A-PAUSED', '1', { paused: true })],
]);
const rfq = (legs: Array<[string, string]>, maxQuoteExpiresAt = NOW + 3600) => ({
  legs: legs.map(([instrument, quantity]) => ({ instrument, quantity })),
  max_quote_expires_at: maxQuoteExpiresAt,
});

describe('priceRfq: the quote', () => {
  it('quotes mid ∓ 1 % of |mid| (200 bps wide), bid floored and ask ceiled to the micro-unit', () => {
    const d = priceRfq(
      rfq([
        ['SOL-A-150-C', '10'],
        ['SOL-A-160-C', '-10'],
      ]),
      book,
      NOW,
    );
    assert.equal(d.action, 'quote');
    if (d.action !== 'quote') return;
    assert.equal(formatRfq(d.mid), '36.45576');
    assert.equal(formatRfq(d.bid), '36.091202'); // 36.45576 - 0.3645576, floored
    assert.equal(formatRfq(d.ask), '36.820318'); // 36.45576 + 0.3645576, ceiled
    assert.equal(d.issuedAt, NOW);
    assert.equal(d.expiresAt, NOW + 30);
  });

  it('is symmetric for a package worth a negative amount, and never narrower than the minimum width', () => {
    const credit = priceRfq(
      rfq([
        ['SOL-A-150-C', '-10'],
        ['SOL-A-160-C', '10'],
      ]),
      book,
      NOW,
    );
    assert.ok(credit.action === 'quote');
    assert.equal(formatRfq(credit.bid), '-36.820318');
    assert.equal(formatRfq(credit.ask), '-36.091202');
    const zero = priceRfq(rfq([['SOL-A-75-P', '1']]), book, NOW);
    assert.ok(zero.action === 'quote');
    assert.equal(zero.bid, -DEFAULT_POLICY.minHalfSpread);
    assert.equal(zero.ask, DEFAULT_POLICY.minHalfSpread);
  });

  it('clamps the quote lifetime to max_quote_expires_at', () => {
    const d = priceRfq(rfq([['SOL-A-150-C', '1']], NOW + 12), book, NOW);
    assert.ok(d.action === 'quote');
    assert.equal(d.expiresAt, NOW + 12);
  });
});

describe('priceRfq: the decline', () => {
  it('declines with the reason of interface.md', () => {
    const reasonOf = (r: ReturnType<typeof rfq>, now = NOW, freshness?: Freshness) => {
      const d = priceRfq(r, book, now, { ...DEFAULT_POLICY, maxLegs: 2, maxLegSize: 100n * MICRO }, freshness);
      return d.action === 'decline' ? d.reason : 'quote';
    };
    assert.equal(reasonOf(rfq([['SOL-B-1-C', '1']])), 'unlisted_instrument');
    assert.equal(reasonOf(rfq([['SOL-A-PAUSED', '1']])), 'unlisted_instrument');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']], EXPIRY), EXPIRY - 599), 'near_expiry');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']], EXPIRY), EXPIRY - 600), 'quote');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']], NOW)), 'near_expiry');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '100.000001']])), 'size_limit');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '-100']])), 'quote');
    assert.equal(
      reasonOf(
        rfq([
          ['SOL-A-150-C', '1'],
          ['SOL-A-160-C', '1'],
          ['SOL-A-75-P', '1'],
        ]),
      ),
      'size_limit',
    );
    assert.equal(reasonOf(rfq([['SOL-A-NOMARK', '1']])), 'stale_data');
    const fresh = (at: number | null): Freshness => ({ indexUpdatedAt: new Map([['SOL', at]]), maxAgeSeconds: 30 });
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']]), NOW, fresh(NOW - 30)), 'quote');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']]), NOW, fresh(NOW - 31)), 'stale_data');
    assert.equal(reasonOf(rfq([['SOL-A-150-C', '1']]), NOW, fresh(null)), 'stale_data');
  });
});

describe('floorDiv and ceilDiv', () => {
  it('divides toward the right infinity (the shared @legwork/protocol helpers)', () => {
    assert.deepEqual([floorDiv(7n, 2n), floorDiv(-7n, 2n), floorDiv(-8n, 2n)], [3n, -4n, -4n]);
    assert.deepEqual([ceilDiv(7n, 2n), ceilDiv(-7n, 2n), ceilDiv(8n, 2n)], [4n, -3n, 4n]);
  });
});

describe('command-line helpers', () => {
  it('parses legs and flags', () => {
    assert.deepEqual(parseLeg('SOL-29NOV26-160-C:-10'), { instrument: 'SOL-29NOV26-160-C', quantity: '-10' });
    assert.throws(() => parseLeg('SOL-29NOV26-160-C:0'));
    assert.throws(() => parseLeg('SOL-29NOV26-160-C'));
    const parsed = parseArgs(['rfq', 'create', '--leg', 'A:1', '--leg=B:-2', '--json'], { leg: 'strings', json: 'boolean' });
    assert.deepEqual(parsed, { positional: ['rfq', 'create'], flags: { leg: ['A:1', 'B:-2'], json: true } });
    assert.throws(() => parseArgs(['--nope'], {}));
    assert.equal(wsUrlOf('http://127.0.0.1:3000'), 'ws://127.0.0.1:3000/client');
    assert.equal(wsUrlOf('https://x.example/'), 'wss://x.example/client');
  });
});
