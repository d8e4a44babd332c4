// A taker: ask for a call spread, check the quote, buy it, read the position.
import { Keypair, LegworkClient, LegworkHttp, RfqError, signAccept, verifyQuote } from '@legwork/sdk';

async function main(): Promise<void> {
  const taker = Keypair.fromSeed(Buffer.from(process.env.TAKER_SEED_HEX!, 'hex'));
  const client = await LegworkClient.connect(process.env.LEGWORK_WS ?? 'ws://127.0.0.1:3000/client');
  await client.signIn(taker);
  await client.subscribeRfq(); // before create: no event is missed
  const events = client.notifications('rfq');

  const instruments = await client.getInstruments({ asset: 'SOL' });
  const expiry = instruments[0].expiry;
  const symbol = (strike: string) => instruments.find((i) => i.expiry === expiry && i.strike === strike && i.kind === 'call')!.symbol;
  const rfq = await client.createRfq({
    legs: [
      { instrument: symbol('150'), quantity: '10' },
      { instrument: symbol('160'), quantity: '-10' },
    ],
  });
  console.log(`rfq ${rfq.rfq_id} ${rfq.state}`);

  for await (const n of events) {
    if (n.rfq.rfq_id !== rfq.rfq_id) continue;
    if (n.event === 'quoted' && n.rfq.quote) {
      const q = n.rfq.quote;
      if (!verifyQuote(n.rfq, instruments)) throw new Error('the quote does not verify');
      console.log(`quote from ${q.maker}: bid ${q.bid} ask ${q.ask}, firm until ${q.expires_at}`);
      const expiresAt = Math.min(Math.floor(Date.now() / 1000) + 10, q.expires_at);
      try {
        await client.accept(signAccept(taker, { rfqId: rfq.rfq_id, quoteId: q.quote_id, side: 'buy', expiresAt }));
      } catch (e) {
        if (e instanceof RfqError && e.error === 'RFQ_TAKER_UNFUNDED') console.log('unfunded:', e.details);
        throw e;
      }
    } else if (['filled', 'failed', 'expired', 'declined'].includes(n.event)) {
      console.log(n.event, n.rfq.fill ?? n.rfq.failure ?? n.rfq.decline_reason);
      break;
    }
  }
  const http = new LegworkHttp(process.env.LEGWORK_HTTP ?? 'http://127.0.0.1:3000', client.sessionToken!);
  console.log((await http.rfqPositions()).rows, (await http.balances()).rows);
  await client.close();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
