// A market maker: quote every new RFQ around the mark, decline what it cannot price.
import { type Instrument, Keypair, LegworkClient, MICRO, type OpenRfq, RfqError, parseRfqSigned, signQuote } from '@legwork/sdk';

async function main(): Promise<void> {
  const maker = Keypair.fromSeed(Buffer.from(process.env.MAKER_SEED_HEX!, 'hex'));
  const client = await LegworkClient.connect(process.env.LEGWORK_WS ?? 'ws://127.0.0.1:3000/client');
  await client.signIn(maker); // the session is resumed by itself after a reconnection
  const instruments = new Map<string, Instrument>();
  const refresh = async () => {
    for (const i of await client.getInstruments()) instruments.set(i.symbol, i);
  };
  await refresh();
  let nonce = BigInt(Date.now()) * 1000n; // strictly increasing, across restarts too

  async function quote(rfq: OpenRfq): Promise<void> {
    if (rfq.legs.some((l) => !instruments.get(l.instrument)?.mark_price)) await refresh();
    const marks = rfq.legs.map((l) => instruments.get(l.instrument)?.mark_price);
    if (marks.some((m) => !m)) {
      await client.decline(rfq.rfq_id, 'stale_data');
      return;
    }
    // Package value in micro-USDC: sum of quantity * mark (bigint, exact).
    const mid = rfq.legs.reduce((sum, l, i) => sum + (parseRfqSigned(l.quantity) * parseRfqSigned(marks[i]!)) / MICRO, 0n);
    const spread = 50_000n + (mid < 0n ? -mid : mid) / 100n; // 0.05 USDC + 1 %
    const now = Math.floor(Date.now() / 1000);
    const params = signQuote(maker, {
      rfq,
      quoteNonce: ++nonce,
      bid: mid - spread,
      ask: mid + spread,
      issuedAt: now,
      expiresAt: Math.min(now + 30, rfq.max_quote_expires_at),
      instruments,
    });
    try {
      const { quote_id } = await client.respond(params);
      console.log(`quoted ${rfq.rfq_id}: ${params.bid} / ${params.ask} (${quote_id})`);
    } catch (e) {
      if (e instanceof RfqError && !e.retryable)
        console.log(`not quoted ${rfq.rfq_id}: ${e.error}`); // e.g. RFQ_STATE_CONFLICT: another maker was first
      else throw e;
    }
  }

  const catchUp = async () => {
    // what was missed while disconnected
    let cursor: string | undefined;
    do {
      const page = await client.poll({ cursor });
      for (const r of page.items) await quote(r);
      cursor = page.next_cursor;
    } while (cursor);
  };
  client.on('reconnected', () => void catchUp().catch(console.error));
  client.on('gap', () => void catchUp().catch(console.error));
  await client.subscribeMaker();
  await catchUp();
  for await (const n of client.notifications('rfq_maker')) {
    if (n.event === 'created') await quote(n.rfq).catch(console.error);
    else if (n.event === 'filled') console.log(`filled ${n.rfq.rfq_id} ${n.rfq.side} at ${n.rfq.fill?.price}`);
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
