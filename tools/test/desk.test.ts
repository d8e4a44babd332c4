// node:test over the desk's tools (docs/spec/design.md 15): limit flags, the payload diff, and the
// CLI's `rfq cancel`, `rfq cancel-all` and `maker limits` as a process against a fake exchange
// (the reference maker's desk: reference-maker.test.ts). `npm run test:tools`. The real server's
// answers are covered by the e2e suite; here the wire.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Keypair, encodeQuotePayload, signingDomain } from '@legwork/sdk';
import { UsageError } from '../src/common';
import { limitsFromFlags, makerLimitLines, mergeLimits } from '../src/desk';
import { payloadDiff } from '../src/maker/payload-diff';
import { EXPIRY, FakeExchange, SYMBOL } from './fake-exchange';

describe('maker limit flags', () => {
  it('turn flags into canonical limits, per-asset maps and protection; "none" removes a limit', () => {
    const changes = limitsFromFlags({
      'max-open-quotes': '10',
      'max-open-notional': '1000000.50',
      'price-band-bps': '500',
      'max-open-delta': ['SOL:100', 'ETH:2.5'],
      'max-quote-notional': 'none',
      'protect-window': '60',
      'protect-max-fills': '3',
      'protect-frozen': '0',
    });
    assert.deepEqual(changes, {
      max_open_quotes: 10,
      max_open_notional: '1000000.5',
      price_band_bps: 500,
      max_open_delta: { SOL: '100', ETH: '2.5' },
      max_quote_notional: null,
      protection: { window_seconds: 60, max_fills: 3, frozen_seconds: 0 },
    });
    assert.equal(limitsFromFlags({ verbose: true }), null);
  });

  it('refuse what the server would misread', () => {
    for (const flags of [
      { 'max-open-quotes': '-1' },
      { 'max-open-quotes': '1.5' },
      { 'max-open-notional': '1e6' },
      { 'max-open-notional': '0.0000001' },
      { 'max-open-delta': ['SOL'] },
      { 'max-open-delta': ['sol:1'] },
      { 'max-open-delta': ['SOL:1', 'SOL:2'] },
    ])
      assert.throws(() => limitsFromFlags(flags), UsageError, JSON.stringify(flags));
  });

  it('merge over the limits held: a flag changes one limit and keeps the others', () => {
    const held = { max_open_quotes: 5, max_open_notional: '100', protection: { window_seconds: 60, max_fills: 3 } };
    assert.deepEqual(mergeLimits(held, { max_open_quotes: 10, max_open_notional: null, protection: { max_fills: null } }), {
      max_open_quotes: 10,
      protection: { window_seconds: 60 },
    });
    assert.deepEqual(mergeLimits(held, { protection: { window_seconds: null, max_fills: null } }), { max_open_quotes: 5, max_open_notional: '100' });
  });

  it('print limits, usage and protection', () => {
    const lines = makerLimitLines({
      limits: { max_open_quotes: 0, max_open_delta: { SOL: '100' } },
      admin_limits: {},
      usage: { open_quotes: 2, open_notional: '300', open_delta: { SOL: '1.1' }, open_vega: {} },
      protection: { frozen: true, until: null, window: { fills: 4, notional: '600', delta: {} } },
    }).join('\n');
    assert.match(lines, /max open quotes\s+0/);
    assert.match(lines, /max open delta\s+SOL 100/);
    assert.match(lines, /\(no limits\)/);
    assert.match(lines, /open delta\s+SOL 1\.1/);
    assert.match(lines, /FROZEN until reset-protection/);
  });
});

describe('payload diff', () => {
  const maker = Keypair.fromSeed(new Uint8Array(32).fill(7));
  const fields = {
    domain: signingDomain('Legwork'),
    rfqId: 'c'.repeat(32),
    maker: maker.publicKey,
    quoteNonce: 5n,
    bid: 1_500_000n,
    ask: 2_250_000n,
    issuedAt: 1_795_000_000,
    expiresAt: 1_795_000_060,
    asset: 'SOL',
    expiry: EXPIRY,
    legs: [{ symbol: SYMBOL, strike: 150_000_000n, kind: 'call' as const, quantity: 1_000_000n }],
  };
  const ours = encodeQuotePayload(fields);

  it('names the fields that differ, in payload order, and nothing for the same bytes', () => {
    assert.deepEqual(payloadDiff(ours, encodeQuotePayload(fields)), []);
    assert.deepEqual(payloadDiff(ours, encodeQuotePayload({ ...fields, bid: 1_500_001n, expiresAt: 1_795_000_061 })), ['bid', 'expires_at']);
    assert.deepEqual(payloadDiff(ours, encodeQuotePayload({ ...fields, domain: signingDomain('Other') })), ['domain (service name)']);
    assert.deepEqual(payloadDiff(ours, encodeQuotePayload({ ...fields, legs: [{ ...fields.legs[0], quantity: -1_000_000n }] })), ['legs[0].quantity']);
    assert.deepEqual(payloadDiff(ours, ours.subarray(0, 100)), ["length (ours 1050, the exchange's 100)"]);
  });
});

/** Runs the built CLI against the fake exchange with a session token (no sign-in). */
function cli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(__dirname, '..', 'src', 'cli.js'), ...args, '--no-cache'],
      { env: { ...process.env, LEGWORK_URL: url, LEGWORK_TOKEN: 'tok', LEGWORK_SEED: '' } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A fake exchange for the tests of one describe block, started before them and stopped after. */
function fakeExchangeFor(): () => FakeExchange {
  let exchange: FakeExchange | undefined;
  before(async () => {
    exchange = await FakeExchange.start();
  });
  after(async () => {
    await exchange?.stop();
  });
  return () => exchange!;
}

describe("the CLI's rfq commands (a process against a fake exchange)", () => {
  const fake = fakeExchangeFor();

  it('rfq cancel <id> sends rfq.cancel and prints the result; an unknown RFQ exits 1 with the error', async () => {
    const exchange = fake();
    const id = 'a'.repeat(32);
    const ok = await cli(exchange.url, ['rfq', 'cancel', id, '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), { rfq_id: id, state: 'expired', cancelled_at: 1_795_000_000 });
    assert.deepEqual(exchange.calls.at(-1), { method: 'rfq.cancel', params: { rfq_id: id } });
    const missing = await cli(exchange.url, ['rfq', 'cancel', 'f'.repeat(32)]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RFQ_NOT_FOUND/);
    const bad = await cli(exchange.url, ['rfq', 'cancel', 'xyz']);
    assert.equal(bad.code, 2);
  });

  it('rfq cancel-all prints each cancelled RFQ', async () => {
    const exchange = fake();
    const out = await cli(exchange.url, ['rfq', 'cancel-all']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, new RegExp(`cancelled rfq ${'a'.repeat(32)}\\ncancelled rfq ${'b'.repeat(32)}`));
    assert.equal(exchange.calls.at(-1)?.method, 'rfq.cancel_all');
  });
});

describe("the CLI's maker commands (a process against a fake exchange)", () => {
  const fake = fakeExchangeFor();

  it('maker limits shows; with flags it sets them over those held; --replace sends only those given', async () => {
    const exchange = fake();
    exchange.limits = { max_quote_notional: '5000', price_band_bps: 100 };
    const shown = await cli(exchange.url, ['maker', 'limits']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /max quote notional\s+5000/);
    assert.equal(exchange.calls.at(-1)?.method, 'rfq.maker.get_limits');

    const set = await cli(exchange.url, [
      'maker',
      'limits',
      '--max-open-quotes',
      '10',
      '--max-open-notional',
      '1000000',
      '--price-band-bps',
      '500',
      '--max-open-delta',
      'SOL:100',
    ]);
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(exchange.calls.at(-1), {
      method: 'rfq.maker.set_limits',
      params: {
        limits: { max_quote_notional: '5000', price_band_bps: 500, max_open_quotes: 10, max_open_notional: '1000000', max_open_delta: { SOL: '100' } },
      },
    });
    assert.match(set.stdout, /limits set/);

    const replaced = await cli(exchange.url, ['maker', 'limits', '--replace', '--max-open-quotes', '0']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.deepEqual(exchange.calls.at(-1)?.params, { limits: { max_open_quotes: 0 } });

    const reset = await cli(exchange.url, ['maker', 'reset-protection']);
    assert.equal(reset.code, 0, reset.stderr);
    assert.ok(exchange.methods().includes('rfq.maker.reset_protection'));
  });

  it('a refusal names its reason', async () => {
    const missing = await cli(fake().url, ['rfq', 'cancel', 'f'.repeat(32)]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RFQ_NOT_FOUND \(rfq_not_found\): no RFQ/);
  });

  it('maker quotes shows the live quotes; --all walks every page', async () => {
    const exchange = fake();
    const live = await cli(exchange.url, ['maker', 'quotes']);
    assert.equal(live.code, 0, live.stderr);
    assert.deepEqual(exchange.calls.at(-1), { method: 'rfq.maker.quotes', params: { state: 'live', limit: 500 } });
    assert.match(live.stdout, new RegExp(`${'1'.repeat(64)}\\s+${'1'.repeat(32)}\\s+99\\s+1.5\\s+2.25\\s+.*live`));
    const all = await cli(exchange.url, ['maker', 'quotes', '--all', '--json']);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      exchange.calls.slice(-2).map((c) => c.params),
      [
        { state: 'all', limit: 500 },
        { state: 'all', limit: 500, after: '2'.repeat(64) },
      ],
    );
    assert.deepEqual(
      (JSON.parse(all.stdout) as { items: Array<{ state: string }> }).items.map((q) => q.state),
      ['live', 'filled', 'expired'],
    );
  });
});
