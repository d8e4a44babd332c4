// node:test over the reference maker's desk (docs/spec/design.md 15): the limits it sets at start,
// a quote refused by a limit, the signature check after a refusal and the protection event, against
// a fake exchange. `npm run test:tools`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Keypair, encodeQuotePayload, signingDomain } from '@legwork/sdk';
import { ReferenceMaker } from '../src/maker/market-maker';
import { EXPIRY, FakeExchange, SYMBOL, rfqError } from './fake-exchange';

const keypair = Keypair.fromSeed(new Uint8Array(32).fill(9));

function openRfq(id: string) {
  const now = Math.floor(Date.now() / 1000);
  return { rfq_id: id, legs: [{ instrument: SYMBOL, quantity: '1' }], created_at: now, expires_at: now + 120, max_quote_expires_at: now + 3600 };
}

/** A fake exchange holding a quote-notional limit, and a reference maker with limits of its own started against it, for one describe block. */
function makerAgainstFakeExchange(): { exchange: () => FakeExchange; maker: () => ReferenceMaker; lines: string[] } {
  let exchange: FakeExchange | undefined;
  let maker: ReferenceMaker | undefined;
  const lines: string[] = [];
  before(async () => {
    exchange = await FakeExchange.start();
    exchange.limits = { max_quote_notional: '5000' };
    maker = new ReferenceMaker({
      url: exchange.url,
      keypair,
      log: (line) => lines.push(line),
      limits: { max_open_quotes: 10, max_open_delta: { SOL: '100' } },
      clientOptions: { reconnect: false, heartbeatMs: 0 },
    });
    await maker.start();
  });
  after(async () => {
    await maker?.stop();
    await exchange?.stop();
  });
  return { exchange: () => exchange!, maker: () => maker!, lines };
}

/** The exchange's answer to `rfq.maker.check` when it read the quote with another expires_at: its payload differs there. */
function checkReadingAnotherExpiry(params: any) {
  const payload = encodeQuotePayload({
    domain: signingDomain('Legwork'),
    rfqId: params.rfq_id,
    maker: keypair.publicKey,
    quoteNonce: BigInt(params.quote_nonce),
    bid: BigInt(Math.round(Number(params.bid) * 1e6)),
    ask: BigInt(Math.round(Number(params.ask) * 1e6)),
    issuedAt: params.issued_at,
    expiresAt: params.expires_at + 1,
    asset: 'SOL',
    expiry: EXPIRY,
    legs: [{ symbol: SYMBOL, strike: 150_000_000n, kind: 'call', quantity: 1_000_000n }],
  });
  return rfqError('RFQ_INVALID_SIGNATURE', 'maker_signature does not verify', {
    rfq_id: params.rfq_id,
    quote_id: 'ee'.repeat(32),
    payload: Buffer.from(payload).toString('base64'),
  });
}

describe('the reference maker: limits, limit refusals and protection (against a fake exchange)', () => {
  const desk = makerAgainstFakeExchange();
  const lines = desk.lines;

  it('sets the limits of its flags at start, over those the account holds', () => {
    const exchange = desk.exchange();
    const set = exchange.calls.find((c) => c.method === 'rfq.maker.set_limits');
    assert.deepEqual(set?.params, { limits: { max_quote_notional: '5000', max_open_quotes: 10, max_open_delta: { SOL: '100' } } });
    assert.ok(exchange.methods().indexOf('rfq.maker.get_limits') < exchange.methods().indexOf('rfq.maker.set_limits'));
    assert.ok(lines.some((l) => l.startsWith('limits set')));
  });

  it('logs a quote refused by a limit as such, and goes on', async () => {
    const exchange = desk.exchange();
    exchange.respond = (params) => rfqError('RFQ_OPEN_LIMIT', 'max_open_quotes 10 would be 11', { rfq_id: params.rfq_id }, true);
    const limited = new Promise<any>((resolve) => desk.maker().once('limited', resolve));
    exchange.notify('rfq_maker', { event: 'created', rfq: openRfq('2'.repeat(32)) });
    assert.deepEqual(await limited, { rfqId: '2'.repeat(32), error: 'RFQ_OPEN_LIMIT', message: 'max_open_quotes 10 would be 11' });
    assert.ok(
      lines.some((l) => /limit {4}rfq 22222222…: quote refused by a limit: RFQ_OPEN_LIMIT/.test(l)),
      lines.join('\n'),
    );
    exchange.respond = (params) => ({ result: { rfq_id: params.rfq_id, quote_id: 'ab'.repeat(32), state: 'quoted' } });
    const quoted = new Promise<any>((resolve) => desk.maker().once('quoted', resolve));
    exchange.notify('rfq_maker', { event: 'created', rfq: openRfq('3'.repeat(32)) });
    assert.equal((await quoted).rfqId, '3'.repeat(32));
  });

  it('logs and emits a protection event', async () => {
    const exchange = desk.exchange();
    const tripped = new Promise<any>((resolve) => desk.maker().once('protection', resolve));
    exchange.notify('rfq_maker', {
      account_seq: 1,
      event: 'protection',
      protection: { tripped_at: 1_795_000_100, until: null, reason: 'max_fills 3 exceeded' },
    });
    assert.deepEqual(await tripped, { trippedAt: 1_795_000_100, until: null, reason: 'max_fills 3 exceeded' });
    assert.ok(
      lines.some((l) => /PROTECTION tripped .* max_fills 3 exceeded; no new quote until reset-protection/.test(l)),
      lines.join('\n'),
    );
  });
});

describe("the reference maker's signature check (against a fake exchange)", () => {
  const desk = makerAgainstFakeExchange();
  const lines = desk.lines;

  it('after a signature refusal, calls rfq.maker.check with the same params and logs where the payloads differ', async () => {
    const exchange = desk.exchange();
    let ours: any = null;
    exchange.respond = (params) => {
      ours = params;
      return rfqError('RFQ_INVALID_SIGNATURE', 'maker_signature does not verify', { rfq_id: params.rfq_id });
    };
    exchange.check = checkReadingAnotherExpiry;
    const mismatch = new Promise<any>((resolve) => desk.maker().once('signatureMismatch', resolve));
    exchange.pending.push(openRfq('1'.repeat(32)));
    exchange.notify('rfq_maker', { event: 'created', rfq: openRfq('1'.repeat(32)) });
    const info = await mismatch;
    assert.deepEqual(info.fields, ['expires_at']);
    assert.equal(info.exchangeQuoteId, 'ee'.repeat(32));
    const checked = exchange.calls.find((c) => c.method === 'rfq.maker.check');
    assert.deepEqual(checked?.params, ours);
    assert.ok(
      lines.some((l) => /SIGNATURE refused .* payload differs in expires_at/.test(l)),
      lines.join('\n'),
    );
  });
});
