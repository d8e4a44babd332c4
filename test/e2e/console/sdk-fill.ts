import { randomUUID } from 'node:crypto';
import { Keypair, LegworkClient, LegworkHttp, MICRO, type MakerNotification, type OpenRfq, buildQuote, parseRfqSigned, signAccept } from '../../../sdk/src';
import { freshIp } from '../clients';
import { ADMIN_TOKEN, type TestApp } from '../harness';

const now = () => Math.floor(Date.now() / 1000);

/**
 * A fill made the way trading firms make them: SDK clients for a taker (1000 USDC) and a maker
 * (`makerDeposit`), on the round of `expiry` at SOL index 150, the maker pricing from the marks
 * (±1 %), the taker buying. The clients go to `clients` (the caller closes them); `onCreated` runs
 * once the RFQ exists, before any quote. Resolves once the accept is answered.
 */
export async function sdkFill(
  app: TestApp,
  expiry: number,
  clients: LegworkClient[],
  legs: Array<{ instrument: string; quantity: string }>,
  makerDeposit: string,
  onCreated: (rfqId: string) => Promise<void> = async () => undefined,
) {
  const admin = new LegworkHttp(app.url, ADMIN_TOKEN);
  const account = async (roles: string[], deposit: string) => {
    const keypair = Keypair.generate();
    const created = await admin.createAccount({ wallet: keypair.wallet, roles });
    await admin.deposit(created.account_id, { amount: deposit, reference: `console-${randomUUID()}` });
    const client = await LegworkClient.connect(app.wsUrl, { wsOptions: { headers: { 'x-forwarded-for': freshIp() } } });
    clients.push(client);
    await client.signIn(keypair);
    return { keypair, accountId: created.account_id, client };
  };
  await admin.marketData({ asset: 'SOL', index_price: '150', iv: '0.8' });
  const taker = await account(['taker'], '1000');
  const maker = await account(['quoter'], makerDeposit);
  const instruments = await taker.client.getInstruments({ asset: 'SOL', expiry });
  const config = await taker.client.getMarketConfig();
  const makerEvents = maker.client.notifications('rfq_maker');
  await maker.client.subscribeMaker();
  const rfq = await taker.client.createRfq({ legs });
  await onCreated(rfq.rfq_id);
  let created: { rfq: OpenRfq } | undefined;
  for await (const n of makerEvents as AsyncIterable<MakerNotification>) {
    if (n.event === 'created' && (n as { rfq: OpenRfq }).rfq.rfq_id === rfq.rfq_id) {
      created = n;
      break;
    }
  }
  const marks = legs.map((l) => parseRfqSigned(instruments.find((i) => i.symbol === l.instrument)!.mark_price!));
  const mid = legs.reduce((sum, l, i) => sum + (parseRfqSigned(l.quantity) * marks[i]) / MICRO, 0n);
  const issuedAt = now();
  const built = buildQuote(maker.keypair, {
    rfq: created!.rfq,
    quoteNonce: BigInt(Date.now()) * 1000n,
    bid: mid - mid / 100n,
    ask: mid + mid / 100n,
    issuedAt,
    expiresAt: Math.min(issuedAt + 30, created!.rfq.max_quote_expires_at),
    instruments,
    domain: config.quote_domain,
  });
  await maker.client.respond(built.params);
  const started = Date.now();
  await taker.client.accept(signAccept(taker.keypair, { rfqId: rfq.rfq_id, quoteId: built.quoteId, side: 'buy', expiresAt: issuedAt + 20 }));
  return { rfq, taker, maker, started };
}
