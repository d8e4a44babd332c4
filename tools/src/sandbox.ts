/**
 * `npm run sandbox`: a market to try a desk's client on (docs/spec/design.md section 18, "A market
 * to try"), in one command: the embedded exchange (a child process on PORT, data in DATA_DIR or a
 * temporary directory), SOL and ETH options, market data that moves, three listed reference makers
 * that compete with different spreads (tools/src/sandbox/makers.ts), and a funded taker wallet. It prints, each on a
 * line of its own, `LEGWORK_URL=<url>` and `LEGWORK_SEED=<hex>` (what the CLI, the SDK examples
 * and the Python client read), then runs until interrupted.
 *
 *   npm run sandbox                      # PORT=3000, a fresh temporary DATA_DIR
 *   PORT=4000 DATA_DIR=./.sandbox npm run sandbox
 */
import { type Instrument, LegworkClient, LegworkHttp } from '@legwork/sdk';
import { UsageError, intSetting, logger, parseArgs, reason, utcDate, wsUrlOf } from './common';
import { SandboxExchange } from './sandbox/exchange';
import { startMakers } from './sandbox/makers';
import { fundedAccount, listInstruments, startFeed } from './sandbox/market';

const USAGE = `usage: npm run sandbox [-- --from-source]

  env PORT       the exchange's port (default 3000)
  env DATA_DIR   its embedded database (default: a temporary directory, removed at exit)
  --from-source  run the exchange from src/ through SWC instead of dist/ (no build needed)

Prints LEGWORK_URL=... and LEGWORK_SEED=... (a funded taker wallet) on lines of their own;
Ctrl-C stops the makers and the exchange.`;

const say = logger('sandbox');
type Cleanup = () => Promise<void> | void;

/** A few listed instruments with their marks, for the start-up lines. */
async function sample(url: string, expiration: number): Promise<Instrument[]> {
  const client = await LegworkClient.connect(wsUrlOf(url));
  try {
    const all = await client.getInstruments({ asset: 'SOL', expiry: expiration });
    return all.filter((i) => i.kind === 'call' && ['140', '150', '160'].includes(i.strike));
  } finally {
    await client.close();
  }
}

/** Everything up to the printed variables; the cleanups in the order they must run. */
async function setUp(exchange: SandboxExchange, cleanups: Cleanup[]): Promise<void> {
  const url = exchange.url;
  cleanups.push(() => exchange.stop());
  say(`starting the embedded exchange on ${url} (DATA_DIR ${exchange.dataDir})`);
  await exchange.start();
  const admin = new LegworkHttp(url).withToken(exchange.adminToken);
  // Independent steps at once: a desk waits for the variables, not for each round trip.
  const [expirations, feed, taker, ...makerAccounts] = await Promise.all([
    listInstruments(admin, say),
    startFeed(admin, say),
    fundedAccount(admin, ['taker'], '100000'),
    ...[0, 1, 2].map(() => fundedAccount(admin, ['quoter'], '1000000')),
  ]);
  cleanups.unshift(feed.stop);
  const [makers, shown] = await Promise.all([
    startMakers(
      url,
      makerAccounts.map((a) => a.keypair),
    ),
    sample(url, expirations[0]),
  ]);
  for (const maker of makers) cleanups.unshift(() => maker.stop());
  say(
    `taker account ${taker.accountId} (wallet ${taker.keypair.wallet}) holds 100000 USDC; three listed makers compete on a competitive RFQ (--compete); on another the first to answer wins`,
  );
  for (const i of shown) say(`  ${i.symbol}  mark ${i.mark_price ?? '-'}  iv ${i.iv ?? '-'}  (expires ${utcDate(i.expiry)})`);
  say(`operator console: ${url}/console (admin token ${exchange.adminToken})`);
  if (shown.length >= 2)
    say(`try: npm run -s cli -- rfq create --compete --leg ${shown[1].symbol}:10 --leg ${shown[shown.length - 1].symbol}:-10   (with the two variables below)`);
  console.log(`LEGWORK_URL=${url}`);
  console.log(`LEGWORK_SEED=${taker.seedHex}`);
}

async function main(): Promise<number> {
  const { flags, positional } = parseArgs(process.argv.slice(2), { 'from-source': 'boolean', help: 'boolean' });
  if (flags.help) {
    console.log(USAGE);
    return 0;
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument ${positional[0]}`);
  const port = intSetting('PORT', process.env.PORT || undefined, 3000, 1);
  const exchange = new SandboxExchange({ port, dataDir: process.env.DATA_DIR || undefined, fromSource: flags['from-source'] === true, log: logger('exch') });
  const cleanups: Cleanup[] = [];
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  try {
    await Promise.race([setUp(exchange, cleanups), stopped.then((signal) => Promise.reject(new Error(`${signal} during start-up`)))]);
    const end = await Promise.race([stopped, exchange.whenExited().then((code) => `the exchange exited (${code})`)]);
    say(`${end}: stopping the makers and the exchange`);
    return end.startsWith('SIG') ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch((error: unknown) => say(`cleanup: ${reason(error)}`));
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
