/**
 * `npm run demo`: one RFQ from start to fill against a running exchange, with a readable
 * transcript. Needs the server's admin token:
 *
 *   terminal 1: ADMIN_TOKEN=demo-admin-token-0123456789abcdef01234567 npm start
 *   terminal 2: LEGWORK_ADMIN_TOKEN=demo-admin-token-0123456789abcdef01234567 npm run demo
 *
 * As admin it creates a taker and a maker account, deposits USDC to both, lists a SOL expiry
 * about 7 days out and feeds prices (re-posted every 10 s: marks go stale after 30 s). It starts
 * the reference maker in-process and walks the taker through create → quote (signature checked)
 * → accept (buy) → filled → positions and balances. Exit 0 on success, 1 with the reason otherwise.
 */
import { randomUUID } from 'node:crypto';
import {
  HttpError,
  type Instrument,
  type Keypair,
  LegworkClient,
  LegworkHttp,
  type MakerQuoteEvent,
  type RfqNotification,
  type RfqView,
  MICRO,
  formatRfq,
  parseHttpDecimal,
  parseRfqSigned,
  signAccept,
  verifyQuote,
} from '@legwork/sdk';
import { UsageError, clock, describeLegs, generateKeypair, httpUrlOf, logger, nowSeconds, parseArgs, reason, setting, utcDate, wsUrlOf } from './common';
import { balanceLines, positionLines } from './format';
import { ReferenceMaker } from './maker/market-maker';

const USAGE = `usage: LEGWORK_ADMIN_TOKEN=<the server's ADMIN_TOKEN> npm run demo -- [--url URL]

  --url URL   exchange base URL (env LEGWORK_URL, default http://127.0.0.1:3000)

Start the server with an admin token first, e.g.
  ADMIN_TOKEN=demo-admin-token-0123456789abcdef01234567 npm start`;

const ASSET = 'SOL';
const SPOT = '150';
const IV = '0.8';
const DAY = 86_400;
const MARKET_DATA_EVERY_MS = 10_000;

class DemoFailure extends Error {
  override name = 'DemoFailure';
}

const say = logger('demo');
const taker = logger('taker');
const admin = logger('admin');

/** An `rfq` event of one RFQ among `events`, within the timeout. */
async function nextEvent(
  events: AsyncIterableIterator<RfqNotification>,
  rfqId: string,
  wanted: string[],
  timeoutMs: number,
  what: string,
): Promise<RfqNotification> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DemoFailure(`no ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  const read = (async () => {
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new DemoFailure(`the connection closed while waiting for ${what}`);
      if (value.rfq.rfq_id !== rfqId) continue;
      taker(`  event ${value.event} (state ${value.rfq.state})`);
      if (wanted.includes(value.event)) return value;
    }
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function makerEvent(maker: ReferenceMaker, event: 'filled' | 'failed', rfqId: string): Promise<MakerQuoteEvent> {
  return new Promise((resolve) => {
    const on = (e: MakerQuoteEvent) => {
      if (e.rfq_id !== rfqId) return;
      maker.off(event, on);
      resolve(e);
    };
    maker.on(event, on);
  });
}

type Cleanups = Array<() => Promise<void> | void>;

/** The exchange URL and admin token, or null after printing the usage for --help. */
function options(): { url: string; adminToken: string } | null {
  const { flags, positional } = parseArgs(process.argv.slice(2), { url: 'string', help: 'boolean' });
  if (flags.help) {
    console.log(USAGE);
    return null;
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument ${positional[0]}`);
  const url = httpUrlOf(setting(flags, 'url', 'LEGWORK_URL', 'http://127.0.0.1:3000')!);
  const adminToken = process.env.LEGWORK_ADMIN_TOKEN;
  if (!adminToken) throw new UsageError('set LEGWORK_ADMIN_TOKEN to the ADMIN_TOKEN the server was started with');
  return { url, adminToken };
}

/** 1. Accounts and money (the admin stands for the web sign-up and the chain watcher). */
async function openAccounts(url: string, adminToken: string): Promise<{ adminHttp: LegworkHttp; takerKey: Keypair; makerKey: Keypair }> {
  const anonymous = new LegworkHttp(url);
  await anonymous.get('/health').catch((error: unknown) => {
    if (error instanceof HttpError) return; // up, whatever its readiness says
    throw new DemoFailure(`no exchange answers at ${url} (${reason(error)}): start it with ADMIN_TOKEN=<token> npm start`);
  });
  const adminHttp = anonymous.withToken(adminToken);
  const takerKey = generateKeypair().keypair;
  const makerKey = generateKeypair().keypair;
  const takerAccount = await adminHttp.createAccount({ wallet: takerKey.wallet, roles: ['taker'] }).catch((error: unknown) => {
    if (error instanceof HttpError && (error.status === 401 || error.status === 403)) {
      throw new DemoFailure(`the server refused the admin token (HTTP ${error.status}): LEGWORK_ADMIN_TOKEN must equal the server's ADMIN_TOKEN`);
    }
    throw error;
  });
  admin(`created taker account ${takerAccount.account_id} (wallet ${takerKey.wallet}, roles taker)`);
  const makerAccount = await adminHttp.createAccount({ wallet: makerKey.wallet, roles: ['quoter'] });
  admin(`created maker account ${makerAccount.account_id} (wallet ${makerKey.wallet}, roles quoter)`);
  const tag = randomUUID();
  await adminHttp.deposit(takerAccount.account_id, { amount: '1000', reference: `demo-${tag}-taker` });
  await adminHttp.deposit(makerAccount.account_id, { amount: '10000', reference: `demo-${tag}-maker` });
  admin(`deposited 1000 USDC to the taker and 10000 USDC to the maker`);
  return { adminHttp, takerKey, makerKey };
}

/** 2. An expiry about 7 days out (08:00 UTC, so reruns on the same day reuse it) and prices, fed until cleanup. */
async function listAndFeed(adminHttp: LegworkHttp, cleanups: Cleanups): Promise<number> {
  const expiration = (Math.floor(nowSeconds() / DAY) + 7) * DAY + 8 * 3600;
  const listed = await adminHttp.createInstruments({ asset: ASSET, expiration, spot_price: SPOT });
  admin(`listed ${ASSET} options expiring ${utcDate(expiration)} around spot ${SPOT}: ${listed.created} new instruments`);
  const feed = async () => {
    await adminHttp.marketData({ asset: ASSET, index_price: SPOT, iv: IV });
  };
  await feed();
  admin(`market data: ${ASSET} index ${SPOT}, flat iv ${IV} (re-posted every ${MARKET_DATA_EVERY_MS / 1000} s while the demo runs)`);
  const feeder = setInterval(() => void feed().catch((error: unknown) => admin(`market data refresh failed: ${reason(error)}`)), MARKET_DATA_EVERY_MS);
  cleanups.push(() => clearInterval(feeder));
  return expiration;
}

interface Trade {
  client: LegworkClient;
  low: Instrument;
  high: Instrument;
  fill: NonNullable<RfqView['fill']>;
}

/** 4. The taker signs in and opens a call spread: buy the 150 call, sell the 160 call, 10 each. */
async function openSpread(url: string, takerKey: Keypair, expiration: number, cleanups: Cleanups) {
  const client = await LegworkClient.connect(wsUrlOf(url));
  cleanups.push(() => client.close());
  const session = await client.signIn(takerKey);
  taker(`signed in: account ${session.account_id}, roles ${session.roles.join(', ')}`);
  const config = await client.getMarketConfig();
  const instruments = await client.getInstruments({ asset: ASSET, expiry: expiration });
  const call = (strike: string): Instrument => {
    const found = instruments.find((i) => i.kind === 'call' && i.strike === strike);
    if (!found) throw new DemoFailure(`no ${ASSET} ${strike} call listed at ${utcDate(expiration)}`);
    return found;
  };
  const [low, high] = [call('150'), call('160')];
  taker(`marks: ${low.symbol} ${low.mark_price ?? 'none'}, ${high.symbol} ${high.mark_price ?? 'none'}`);
  const events = client.notifications('rfq');
  await client.subscribeRfq(); // before create: no event can be missed
  const rfq: RfqView = await client.createRfq({
    legs: [
      { instrument: low.symbol, quantity: '10' },
      { instrument: high.symbol, quantity: '-10' },
    ],
  });
  taker(`created rfq ${rfq.rfq_id} [${describeLegs(rfq.legs)}] (${rfq.state}, open until ${clock(rfq.expires_at)} UTC)`);
  return { client, config, instruments, low, high, events, rfq };
}

/** 4 to 6: the spread quoted by the maker, the quote checked, its buy side accepted and filled. */
async function tradeSpread(url: string, takerKey: Keypair, maker: ReferenceMaker, expiration: number, cleanups: Cleanups): Promise<Trade> {
  const { client, config, instruments, low, high, events, rfq } = await openSpread(url, takerKey, expiration, cleanups);

  // 5. The quote: check it before trusting it.
  const quoted = await nextEvent(events, rfq.rfq_id, ['quoted', 'declined', 'expired'], 15_000, 'quote');
  if (quoted.event !== 'quoted' || !quoted.rfq.quote)
    throw new DemoFailure(`the RFQ was ${quoted.event}${quoted.rfq.decline_reason ? ` (${quoted.rfq.decline_reason})` : ''} instead of quoted`);
  const q = quoted.rfq.quote;
  taker(`quote ${q.quote_id}`);
  taker(`  bid ${q.bid} / ask ${q.ask} USDC for the package, firm until ${clock(q.expires_at)} UTC, from maker ${q.maker}`);
  const ok = verifyQuote(quoted.rfq, instruments, { domain: config.quote_domain });
  if (!ok) throw new DemoFailure('the quote does not verify (quote id or maker signature): not accepting it');
  taker(`  verifyQuote: the quote id is the SHA-256 of the rebuilt payload and the maker's ed25519 signature verifies`);

  // 6. Accept the buy side and wait for the fill.
  const makerFilled = makerEvent(maker, 'filled', rfq.rfq_id);
  const expiresAt = Math.min(nowSeconds() + 20, q.expires_at);
  const accepted = await client.accept(signAccept(takerKey, { rfqId: rfq.rfq_id, quoteId: q.quote_id, side: 'buy', expiresAt }));
  taker(`accept buy at ask ${q.ask} (signed, valid until ${clock(expiresAt)} UTC): ${accepted.state}`);
  const done = await nextEvent(events, rfq.rfq_id, ['filled', 'failed', 'expired'], 30_000, 'fill');
  if (done.event !== 'filled' || !done.rfq.fill)
    throw new DemoFailure(`the RFQ ended ${done.event}${done.rfq.failure ? `: ${done.rfq.failure.error} (${done.rfq.failure.message})` : ''}`);
  const fill = done.rfq.fill;
  taker(`filled: fill #${fill.fill_id}, bought the spread at ${fill.price} USDC, taker fee ${fill.fee} USDC`);
  await Promise.race([makerFilled, new Promise((_, reject) => setTimeout(() => reject(new DemoFailure('the maker did not hear its fill within 5 s')), 5_000))]);
  return { client, low, high, fill };
}

/** 7 and 8: positions and balances over the HTTP query API, and the books must add up. */
async function checkBooks(url: string, makerKey: Keypair, { client, low, high, fill }: Trade): Promise<void> {
  const takerHttp = new LegworkHttp(url, client.sessionToken!);
  const makerHttp = new LegworkHttp(url);
  await makerHttp.signIn(makerKey);
  const show = (who: string, lines: string[]) => {
    say(who);
    for (const line of lines) say(`  ${line}`);
  };
  const takerPositions = (await takerHttp.rfqPositions()).rows;
  const makerPositions = (await makerHttp.rfqPositions()).rows;
  show('taker positions (GET /query/rfq-positions)', positionLines(takerPositions));
  show('maker positions', positionLines(makerPositions));
  const takerBalance = (await takerHttp.balances()).rows;
  const makerBalance = (await makerHttp.balances()).rows;
  show('taker balance (GET /query/balances)', balanceLines(takerBalance));
  show('maker balance', balanceLines(makerBalance));

  // The taker holds +10 / -10, the maker the opposite, cash moved by ask and fee.
  const qty = (rows: typeof takerPositions, symbol: string) => formatRfq(parseHttpDecimal(rows.find((r) => r.instrument === symbol)?.quantity ?? '0'));
  const expect = (cond: boolean, what: string) => {
    if (!cond) throw new DemoFailure(`check failed: ${what}`);
  };
  expect(qty(takerPositions, low.symbol) === '10' && qty(takerPositions, high.symbol) === '-10', 'taker holds +10 / -10');
  expect(qty(makerPositions, low.symbol) === '-10' && qty(makerPositions, high.symbol) === '10', 'maker holds -10 / +10');
  const price = parseRfqSigned(fill.price);
  const fee = parseRfqSigned(fill.fee);
  expect(parseHttpDecimal(takerBalance[0]?.total) === 1_000n * MICRO - price - fee, 'taker total = 1000 - price - fee');
  expect(parseHttpDecimal(makerBalance[0]?.total) === 10_000n * MICRO + price, 'maker total = 10000 + price');
  say(`done: the taker paid ${fill.price} + ${fill.fee} fee, the maker received ${fill.price}; positions net to zero`);
}

async function main(): Promise<number> {
  const opts = options();
  if (!opts) return 0;
  const { url, adminToken } = opts;
  const cleanups: Cleanups = [];
  try {
    say(`Legwork demo against ${url}`);
    const { adminHttp, takerKey, makerKey } = await openAccounts(url, adminToken);
    const expiration = await listAndFeed(adminHttp, cleanups);

    // 3. The reference maker, in-process (the code of `npm run maker`).
    const maker = new ReferenceMaker({ url, keypair: makerKey });
    cleanups.push(() => maker.stop());
    await maker.start();

    const trade = await tradeSpread(url, takerKey, maker, expiration, cleanups);
    await checkBooks(url, makerKey, trade);
    return 0;
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    say(`FAILED: ${reason(error)}`);
    process.exit(1);
  },
);
