// node:test over the reference maker's `--compete` mode (docs/spec/design.md 18) against a fake
// exchange: its profile at start, a competitive RFQ quoted at once, the live quote replaced when
// the mid moves past the threshold (not before), withdrawn when the index goes stale, and the
// quote-end events. `npm run test:tools`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Keypair } from '@legwork/sdk';
import { ReferenceMaker } from '../src/maker/market-maker';
import { FakeExchange, SYMBOL } from './fake-exchange';

const keypair = Keypair.fromSeed(new Uint8Array(32).fill(11));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function competitiveRfq(id: string) {
  const now = Math.floor(Date.now() / 1000);
  return {
    rfq_id: id,
    legs: [{ instrument: SYMBOL, quantity: '1' }],
    created_at: now,
    expires_at: now + 120,
    max_quote_expires_at: now + 3600,
    competitive: true,
  };
}

describe('the reference maker with --compete (against a fake exchange)', () => {
  let exchange: FakeExchange;
  let maker: ReferenceMaker;
  let quoteSeq = 0;
  const lines: string[] = [];
  const responds = (rfqId: string) => exchange.calls.filter((c) => c.method === 'rfq.maker.respond' && c.params.rfq_id === rfqId);

  before(async () => {
    exchange = await FakeExchange.start();
    exchange.respond = (params) => ({ result: { rfq_id: params.rfq_id, quote_id: (++quoteSeq).toString(16).padStart(64, '0'), state: 'quoted' } });
    maker = new ReferenceMaker({
      url: exchange.url,
      keypair,
      log: (line) => lines.push(line),
      clientOptions: { reconnect: false, heartbeatMs: 0 },
      thinkMs: () => 5_000, // a seed RFQ's wait: never on a competitive one
      compete: { replaceOnMoveBps: 100, maxDataAgeSeconds: 5, watchMs: 50 },
      profile: { listed: true, name: 'Aster' },
    });
    await maker.start();
  });
  after(async () => {
    await maker.stop();
    await exchange.stop();
  });

  it('sets its profile at start', () => {
    assert.deepEqual(exchange.calls.find((c) => c.method === 'rfq.maker.set_profile')?.params, { listed: true, name: 'Aster' });
  });

  it('quotes a competitive RFQ at once, and keeps its live quote', async () => {
    const started = Date.now();
    const quoted = new Promise<any>((resolve) => maker.once('quoted', resolve));
    exchange.notify('rfq_maker', { event: 'created', rfq: competitiveRfq('1'.repeat(32)) });
    assert.equal((await quoted).rfqId, '1'.repeat(32));
    assert.ok(Date.now() - started < 2_000, 'no think time');
    assert.equal(maker.competing!.quotes.get('1'.repeat(32))?.quoteId, quoteSeq.toString(16).padStart(64, '0'));
  });

  it('replaces the live quote when the mid moves past the threshold, not before', async () => {
    const id = '1'.repeat(32);
    exchange.markPrice = '12.6'; // 0.8 %: under 100 bps
    await sleep(400);
    assert.equal(responds(id).length, 1);
    const before = responds(id)[0].params;
    const requoted = new Promise<any>((resolve) => maker.once('quoted', resolve));
    exchange.markPrice = '12.8'; // 2.4 % over the quoted 12.5
    const record = await requoted;
    assert.equal(responds(id).length, 2);
    const after = responds(id)[1].params;
    assert.ok(Number(after.bid) > Number(before.bid) && Number(after.ask) > Number(before.ask), JSON.stringify({ before, after }));
    assert.ok(BigInt(after.quote_nonce) > BigInt(before.quote_nonce));
    assert.equal(maker.competing!.quotes.get(id)?.quoteId, record.quoteId);
    assert.ok(lines.some((l) => /requote {2}rfq 11111111…: mid moved/.test(l)));
  });

  it('withdraws the live quote when the index is older than the max age', async () => {
    const id = '1'.repeat(32);
    const live = maker.competing!.quotes.get(id)!.quoteId;
    const withdrawn = new Promise<any>((resolve) => maker.once('withdrawn', resolve));
    exchange.indexUpdatedAt = Math.floor(Date.now() / 1000) - 8;
    const info = await withdrawn;
    assert.equal(info.quoteId, live);
    assert.deepEqual(exchange.calls.filter((c) => c.method === 'rfq.maker.cancel_quote').at(-1)?.params, { quote_id: live });
    assert.equal(maker.competing!.quotes.has(id), false);
    exchange.indexUpdatedAt = null;
  });

  it('stops watching an RFQ on traded_away and closed, and quotes again when its quote expired while the RFQ is open', async () => {
    for (const [n, end] of [
      ['2', 'traded_away'],
      ['3', 'closed'],
      ['4', 'expired'],
    ] as const) {
      const id = n.repeat(32);
      const quoted = new Promise<any>((resolve) => maker.once('quoted', resolve));
      exchange.notify('rfq_maker', { event: 'created', rfq: competitiveRfq(id) });
      const { quoteId } = await quoted;
      const again = end === 'expired' ? new Promise<any>((resolve) => maker.once('quoted', resolve)) : null;
      if (end === 'closed') exchange.notify('rfq_maker', { event: 'closed', rfq: { ...competitiveRfq(id), state: 'accepted' } });
      else exchange.notify('rfq_maker', { account_seq: Number(n), event: end, rfq: { rfq_id: id, quote_id: quoteId } });
      if (again) {
        assert.equal((await again).rfqId, id);
        assert.equal(responds(id).length, 2);
        continue;
      }
      await exchange.until(() => !maker.competing!.quotes.has(id));
      exchange.markPrice = exchange.markPrice === '12.8' ? '13.4' : '12.8'; // a move that would requote a watched RFQ
      await sleep(300);
      assert.equal(responds(id).length, 1, end);
    }
  });
});
