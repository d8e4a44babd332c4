/**
 * The whole RFQ flow driven through the TypeScript SDK only, as a trading firm would use it:
 * sign-in, create, respond (signed quote), accept (signed), the `filled` notification on both
 * channels, and the positions, balances and fills over the HTTP query API.
 *
 * The SDK is imported from its source (`sdk/src`), not from the `@legwork/sdk` package: the
 * package resolves to `sdk/dist`, which is not committed and is built only by `npm run test:sdk`,
 * after `npm run typecheck` has run; a fresh clone would fail the typecheck. jest (SWC)
 * compiles `sdk/src` like the rest of the tests, so the test always runs the SDK as it is in the tree.
 */
import { randomUUID } from 'node:crypto';
import {
  type AuthResult,
  type FillView,
  type Instrument,
  Keypair,
  LegworkClient,
  LegworkHttp,
  MICRO,
  type MakerNotification,
  type OpenRfq,
  type QuoteView,
  type RfqLeg,
  type RfqNotification,
  type RfqView,
  RfqError,
  buildQuote,
  formatRfq,
  parseHttpDecimal,
  parseRfqSigned,
  signAccept,
  takerCommitmentOf,
  verifyQuote,
  verifyReceipt,
} from '../../sdk/src';
import { freshIp } from './clients';
import { ADMIN_TOKEN, Environment, type TestApp } from './harness';

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

/** The next notification matching `match`, within `timeoutMs`. */
async function next<T extends { event: string }>(events: AsyncIterableIterator<T>, match: (n: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no matching notification in time')), timeoutMs)));
  const read = (async () => {
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new Error('the notification stream ended');
      if (match(value)) return value;
    }
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('SDK end to end: sign-in → create → respond → accept → filled → positions', () => {
  let env: Environment;
  let app: TestApp;
  let admin: LegworkHttp;
  let expiry: number;
  const clients: LegworkClient[] = [];

  /** Every client from its own address: the server limits sign-in nonces per client IP (TRUST_PROXY is on in tests). */
  const connect = async () => {
    const client = await LegworkClient.connect(app.wsUrl, { wsOptions: { headers: { 'x-forwarded-for': freshIp() } } });
    clients.push(client);
    return client;
  };
  const httpFor = (token: string) => new LegworkHttp(app.url, token, { headers: { 'x-forwarded-for': freshIp() } });

  async function account(roles: string[], deposit: string) {
    const keypair = Keypair.generate();
    const created = await admin.createAccount({ wallet: keypair.wallet, roles });
    await admin.deposit(created.account_id, { amount: deposit, reference: `sdk-${randomUUID()}` });
    return { keypair, accountId: created.account_id };
  }

  beforeAll(async () => {
    env = await Environment.create();
    app = await env.start();
    admin = new LegworkHttp(app.url, ADMIN_TOKEN);
    expiry = (Math.floor(now() / DAY) + 7) * DAY + 8 * 3600;
    expect(await admin.createInstruments({ asset: 'SOL', expiration: expiry, spot_price: '150' })).toEqual({ asset: 'SOL', expiration: expiry, created: 122 });
    await admin.marketData({ asset: 'SOL', index_price: '150', iv: '0.8' });
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await app?.close();
    await env?.destroy();
  });

  type Party = Awaited<ReturnType<typeof account>>;

  /** One trade as it goes: both sides signed in and subscribed, the market, and the RFQ created with `legs`. */
  interface Trade {
    taker: Party;
    maker: Party;
    takerClient: LegworkClient;
    makerClient: LegworkClient;
    takerSession: AuthResult;
    makerSession: AuthResult;
    takerEvents: AsyncIterableIterator<RfqNotification>;
    makerEvents: AsyncIterableIterator<MakerNotification>;
    market: Market;
    legs: RfqLeg[];
    rfq: RfqView;
  }

  /** Sign-in over WebSocket (get_nonce → sign → public/auth), each side on a client of its own. */
  async function signInBoth(taker: Party, maker: Party) {
    const takerClient = await connect();
    const makerClient = await connect();
    const takerSession = await takerClient.signIn(taker.keypair);
    expect(takerSession).toMatchObject({ wallet: taker.keypair.wallet, account_id: taker.accountId, roles: ['taker'] });
    expect(takerClient.sessionToken).toBe(takerSession.session_token);
    const makerSession = await makerClient.signIn(maker.keypair);
    expect(makerSession).toMatchObject({ wallet: maker.keypair.wallet, account_id: maker.accountId, roles: ['quoter'] });
    return { takerClient, makerClient, takerSession, makerSession };
  }

  /** The market config, SOL's instruments at `expiry`, and its 150 and 160 calls (both marked). */
  async function callSpreadMarket(client: LegworkClient) {
    const config = await client.getMarketConfig();
    const instruments = await client.getInstruments({ asset: 'SOL', expiry });
    const call = (strike: string): Instrument => instruments.find((i) => i.kind === 'call' && i.strike === strike)!;
    const [c150, c160] = [call('150'), call('160')];
    expect(c150.mark_price).toEqual(expect.any(String));
    expect(c160.mark_price).toEqual(expect.any(String));
    return { config, instruments, c150, c160 };
  }
  type Market = Awaited<ReturnType<typeof callSpreadMarket>>;

  /** The maker hears the RFQ (and can poll it), prices it from the marks and answers with a signed quote; a second respond is refused. */
  async function makerQuotes({ maker, makerClient, makerEvents, market, legs, rfq }: Trade) {
    const { config, instruments, c150, c160 } = market;
    const created = (await next<MakerNotification>(makerEvents, (n) => n.event === 'created' && n.rfq.rfq_id === rfq.rfq_id)) as { rfq: OpenRfq };
    expect(created.rfq).toEqual({
      rfq_id: rfq.rfq_id,
      legs,
      created_at: rfq.created_at,
      expires_at: rfq.expires_at,
      max_quote_expires_at: rfq.max_quote_expires_at,
    });
    expect((await makerClient.poll()).items.map((r) => r.rfq_id)).toContain(rfq.rfq_id);
    const mid = legs.reduce((sum, l, i) => sum + (parseRfqSigned(l.quantity) * parseRfqSigned([c150, c160][i].mark_price)) / MICRO, 0n);
    const bid = mid - mid / 100n;
    const ask = mid + mid / 100n;
    const issuedAt = now();
    const built = buildQuote(maker.keypair, {
      rfq: created.rfq,
      quoteNonce: BigInt(Date.now()) * 1000n,
      bid,
      ask,
      issuedAt,
      expiresAt: Math.min(issuedAt + 30, created.rfq.max_quote_expires_at),
      instruments,
      domain: config.quote_domain,
    });
    const responded = await makerClient.respond(built.params);
    expect(responded).toEqual({ rfq_id: rfq.rfq_id, quote_id: built.quoteId, state: 'quoted' });

    // A second respond on the quoted RFQ is refused (first quote wins).
    const again = buildQuote(maker.keypair, {
      rfq: created.rfq,
      quoteNonce: BigInt(Date.now()) * 1000n + 1n,
      bid,
      ask,
      issuedAt,
      expiresAt: issuedAt + 30,
      instruments,
      domain: config.quote_domain,
    });
    await expect(makerClient.respond(again.params)).rejects.toMatchObject({ name: 'RfqError', error: 'RFQ_STATE_CONFLICT', retryable: false });
    return { built, bid, ask };
  }

  /** The taker hears the quote and checks it before trusting it: the quote, as heard. */
  async function takerChecksQuote({ maker, takerEvents, market, rfq }: Trade, { built, bid, ask }: Awaited<ReturnType<typeof makerQuotes>>) {
    const { config, instruments } = market;
    const quoted = await next<RfqNotification>(takerEvents, (n) => n.rfq.rfq_id === rfq.rfq_id && n.event === 'quoted');
    const q = quoted.rfq.quote!;
    expect(q).toMatchObject({
      quote_id: built.quoteId,
      maker: maker.keypair.wallet,
      bid: formatRfq(bid),
      ask: formatRfq(ask),
      maker_signature: built.params.maker_signature,
    });
    expect(verifyQuote(quoted.rfq, instruments, { domain: config.quote_domain })).toBe(true);
    expect(verifyQuote({ ...quoted.rfq, quote: { ...q, ask: formatRfq(ask - 1n) } }, instruments, { domain: config.quote_domain })).toBe(false);
    expect(verifyQuote(quoted.rfq, instruments, { serviceName: 'Another exchange' })).toBe(false);
    return q;
  }

  /** A signature over the other side is refused; the real accept goes through. */
  async function takerAccepts({ taker, takerClient, rfq }: Trade, q: QuoteView) {
    const wrong = signAccept(taker.keypair, { rfqId: rfq.rfq_id, quoteId: q.quote_id, side: 'sell', expiresAt: q.expires_at });
    const refused = await takerClient.accept({ ...wrong, side: 'buy' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RfqError);
    expect(refused).toMatchObject({ error: 'RFQ_INVALID_SIGNATURE' });
    const accepted = await takerClient.accept(
      signAccept(taker.keypair, { rfqId: rfq.rfq_id, quoteId: q.quote_id, side: 'buy', expiresAt: Math.min(now() + 20, q.expires_at) }),
    );
    expect(accepted).toEqual({ rfq_id: rfq.rfq_id, quote_id: q.quote_id, side: 'buy', state: 'accepted' });
  }

  /** `filled` reaches the taker (channel rfq) and the maker (channel rfq_maker), each with the signed receipt: the fill. */
  async function bothHearFill({ taker, takerClient, takerEvents, makerEvents, rfq }: Trade, q: QuoteView, ask: bigint) {
    const filled = await next<RfqNotification>(takerEvents, (n) => n.rfq.rfq_id === rfq.rfq_id && ['filled', 'failed'].includes(n.event), 20_000);
    expect(filled.event).toBe('filled');
    expect(filled.rfq).toMatchObject({ state: 'filled', accepted_side: 'buy', fill: { side: 'buy', price: formatRfq(ask), reverted: false } });
    const fill = filled.rfq.fill!;
    const makerFilled = await next<MakerNotification>(makerEvents, (n) => n.event === 'filled' && n.rfq.rfq_id === rfq.rfq_id);
    expect(makerFilled).toMatchObject({
      event: 'filled',
      rfq: { rfq_id: rfq.rfq_id, quote_id: q.quote_id, state: 'filled', side: 'buy', fill: { fill_id: fill.fill_id, price: fill.price } },
    });
    // The event's fill carries the exchange's signed receipt; both sides verify it with the published key.
    // It holds the taker's commitment (version 2), which the taker's copy proves with its salt; the
    // maker's copy is the same receipt without the salt (docs/spec/design.md 16).
    const { receipt, ...fillView } = fill;
    const { keys } = await admin.exchangeKeys();
    const fillToMatch = { ...fill, rfq_id: rfq.rfq_id, quote_id: q.quote_id, legs: rfq.legs };
    expect(verifyReceipt(receipt!, { keys, fill: fillToMatch, taker: taker.keypair.wallet })).toMatchObject({
      version: 2,
      taker: null,
      takerCommitment: takerCommitmentOf(receipt!.taker_salt!, taker.keypair.wallet),
      kind: 0,
    });
    const { taker_salt: _salt, ...makersCopy } = receipt!;
    expect((makerFilled as { rfq: { fill?: { receipt?: unknown } } }).rfq.fill?.receipt).toEqual(makersCopy);
    verifyReceipt(makersCopy, { keys, fill: fillToMatch });
    expect((makerFilled as { account_seq?: number }).account_seq).toEqual(expect.any(Number));
    expect(await takerClient.getRfq(rfq.rfq_id)).toMatchObject({ state: 'filled', fill: fillView });
    return fill;
  }

  /** Positions, cash and fills over the HTTP query API, with each side's own session token. */
  async function queriesShowFill({ taker, takerSession, makerSession, market, rfq }: Trade, q: QuoteView, fill: FillView, ask: bigint) {
    const { c150, c160 } = market;
    // Positions over GET /query/rfq-positions.
    const takerHttp = httpFor(takerSession.session_token);
    const makerHttp = httpFor(makerSession.session_token);
    const net = (rows: Array<{ instrument: string; quantity: string }>) =>
      Object.fromEntries(rows.map((r) => [r.instrument, formatRfq(parseHttpDecimal(r.quantity))]));
    const takerPositions = await takerHttp.rfqPositions();
    expect(net(takerPositions.rows)).toEqual({ [c150.symbol]: '10', [c160.symbol]: '-10' });
    for (const row of takerPositions.rows) expect(row).toMatchObject({ account_id: taker.accountId, asset: 'SOL', kind: 'call', expiry, settled: false });
    expect(net((await makerHttp.rfqPositions()).rows)).toEqual({ [c150.symbol]: '-10', [c160.symbol]: '10' });
    expect((await takerHttp.rfqPositions({ status: 'settled' })).rows).toEqual([]);

    // Cash: the taker paid the ask and the fee, the maker received the ask.
    const total = async (http: LegworkHttp) => parseHttpDecimal((await http.balances()).rows[0].total);
    expect(await total(takerHttp)).toBe(1000n * MICRO - ask - parseRfqSigned(fill.fee));
    expect(await total(makerHttp)).toBe(10_000n * MICRO + ask);

    // Fills over GET /query/rfq-fills: one row each, by role.
    const [takerFill] = (await takerHttp.rfqFills()).rows;
    expect(takerFill).toMatchObject({ fill_id: fill.fill_id, rfq_id: rfq.rfq_id, quote_id: q.quote_id, role: 'taker', side: 'buy', reverted: false });
    expect(parseHttpDecimal(takerFill.price)).toBe(ask);
    const [makerFill] = (await makerHttp.rfqFills()).rows;
    expect(makerFill).toMatchObject({ fill_id: fill.fill_id, role: 'maker', side: 'buy' });
  }

  it('fills a two-leg call spread bought from a signed quote, and both sides see it', async () => {
    const taker = await account(['taker'], '1000');
    const maker = await account(['quoter'], '10000');
    const { takerClient, makerClient, takerSession, makerSession } = await signInBoth(taker, maker);
    const market = await callSpreadMarket(takerClient);

    // Subscribe before create: no event is missed.
    const makerEvents = makerClient.notifications('rfq_maker');
    await makerClient.subscribeMaker();
    const takerEvents = takerClient.notifications('rfq');
    await takerClient.subscribeRfq();

    // rfq.create: buy the 150 call, sell the 160 call, 10 each.
    const legs = [
      { instrument: market.c150.symbol, quantity: '10' },
      { instrument: market.c160.symbol, quantity: '-10' },
    ];
    const rfq = await takerClient.createRfq({ legs });
    expect(rfq).toMatchObject({ state: 'pending', legs, quote: null, fill: null });
    expect(rfq.rfq_id).toMatch(/^[0-9a-f]{32}$/);

    const trade: Trade = { taker, maker, takerClient, makerClient, takerSession, makerSession, takerEvents, makerEvents, market, legs, rfq };
    const quote = await makerQuotes(trade);
    const q = await takerChecksQuote(trade, quote);
    await takerAccepts(trade, q);
    const fill = await bothHearFill(trade, q, quote.ask);
    await queriesShowFill(trade, q, fill, quote.ask);
  });

  it('a decline reaches the taker with its reason', async () => {
    const taker = await account(['taker'], '100');
    const maker = await account(['quoter'], '100');
    const takerClient = await connect();
    const makerClient = await connect();
    await takerClient.signIn(taker.keypair);
    await makerClient.signIn(maker.keypair);
    const [put] = (await takerClient.getInstruments({ asset: 'SOL', expiry })).filter((i) => i.kind === 'put' && i.strike === '140');
    const events = takerClient.notifications('rfq');
    await takerClient.subscribeRfq();
    const rfq = await takerClient.createRfq({ legs: [{ instrument: put.symbol, quantity: '5000' }] });
    expect(await makerClient.decline(rfq.rfq_id, 'size_limit')).toEqual({ rfq_id: rfq.rfq_id, state: 'declined', decline_reason: 'size_limit' });
    const declined = await next<RfqNotification>(events, (n) => n.rfq.rfq_id === rfq.rfq_id);
    expect(declined).toMatchObject({ event: 'declined', rfq: { state: 'declined', decline_reason: 'size_limit', quote: null } });
  });
});
