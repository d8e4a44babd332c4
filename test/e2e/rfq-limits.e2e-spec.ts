import type { RpcClient } from './clients';
import { Environment } from './harness';
import { clientRef, expectRfqError, expirationIn, leg, listRound, rfqTrader } from './rfq-support';

/** The open-RFQ limit, the rate limit and RFQ_ENABLED, each on an app of its own settings. */
describe('RFQ limits and switches', () => {
  let env: Environment;
  afterEach(async () => {
    await env?.destroy();
  });

  it('MAX_OPEN_RFQS: RFQ_OPEN_LIMIT (retryable), and the rate limit: RFQ_RATE_LIMITED (retryable)', async () => {
    env = await Environment.create();
    const app = await env.start({ MAX_OPEN_RFQS: '2', RFQ_RATE_PER_SECOND: '1', RFQ_RATE_BURST: '8' });
    const clients: RpcClient[] = [];
    try {
      const sol = await listRound(app, 'SOL', expirationIn(10));
      const [taker, quoter, chatty] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['taker'])]);
      clients.push(taker.client, quoter.client, chatty.client);
      const a = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      const before = await taker.client.result('rfq.list', {});
      const reply = await taker.client.call('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] });
      expectRfqError(reply, 'RFQ_OPEN_LIMIT', true);
      expect(await taker.client.result('rfq.list', {})).toEqual(before);
      // A replay of an existing create is not a new open RFQ.
      expect(await taker.client.result('rfq.create', { client_ref: a.client_ref, legs: a.legs })).toEqual(a);
      // An ended RFQ frees its place.
      await quoter.client.result('rfq.maker.decline', { rfq_id: a.rfq_id, reason: 'size_limit' });
      expect(await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(sol.symbol('150'), '1')] })).toMatchObject({ state: 'pending' });

      const replies = [];
      for (let i = 0; i < 12; i++) replies.push(await chatty.client.call('rfq.list', {}));
      const limited = replies.filter((r) => r.error);
      expect(limited.length).toBeGreaterThan(0);
      expectRfqError(limited[0], 'RFQ_RATE_LIMITED', true);
    } finally {
      for (const c of clients) await c.close();
      await app.close();
    }
  });

  it('RFQ_ENABLED=false: RFQ_NOT_ENABLED for every rfq method', async () => {
    env = await Environment.create();
    const app = await env.start({ RFQ_ENABLED: 'false' });
    const t = await rfqTrader(app, ['taker', 'quoter']);
    try {
      for (const method of [
        'rfq.create',
        'rfq.get',
        'rfq.list',
        'rfq.subscribe',
        'rfq.maker.poll',
        'rfq.maker.respond',
        'rfq.maker.decline',
        'rfq.maker.subscribe',
      ]) {
        expectRfqError(await t.client.call(method, {}), 'RFQ_NOT_ENABLED');
      }
    } finally {
      await t.client.close();
      await app.close();
    }
  });
});
