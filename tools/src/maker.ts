/**
 * `npm run maker`: the reference market maker as a process.
 *
 *   LEGWORK_URL=http://127.0.0.1:3000 LEGWORK_MAKER_SEED=<64 hex> npm run maker -- --spread-bps 150
 *   npm run maker -- --max-open-quotes 10 --max-open-notional 1000000 --price-band-bps 500 --max-open-delta SOL:100
 *   npm run maker -- --compete --replace-bps 10 --max-data-age 5 --name "Aster" --listed
 *
 * Without a seed it generates a wallet, prints it (and the seed, to reuse it) and exits unless
 * the wallet already has a quoter account, which a fresh one never has.
 */
import { formatRfq } from '@legwork/sdk';
import { UsageError, generateKeypair, httpUrlOf, intSetting, keypairFromHex, logger, microSetting, parseArgs, reason, setting } from './common';
import { LIMIT_FLAGS, LIMIT_USAGE, limitsFromFlags } from './desk';
import { ReferenceMaker } from './maker/market-maker';
import { DEFAULT_POLICY } from './maker/pricing';
import type { CompeteOptions } from './maker/competing';

const DEFAULT_COMPETE = { replaceOnMoveBps: 10, maxDataAgeSeconds: 10 } as const;

const USAGE = `usage: npm run maker -- [flags]

  --url URL              exchange base URL          (env LEGWORK_URL, default http://127.0.0.1:3000)
  --seed HEX             maker wallet seed, 64 hex  (env LEGWORK_MAKER_SEED, else LEGWORK_SEED; none: a new wallet is generated and printed)
  --spread-bps N         quote width in bps of |mid| (env LEGWORK_SPREAD_BPS, default ${DEFAULT_POLICY.spreadBps})
  --min-spread USDC      smallest half width         (env LEGWORK_MIN_SPREAD, default ${formatRfq(DEFAULT_POLICY.minHalfSpread)})
  --max-legs N           decline more legs (size_limit)          (env LEGWORK_MAX_LEGS, default ${DEFAULT_POLICY.maxLegs})
  --max-size QTY         decline a leg with |quantity| above it  (env LEGWORK_MAX_SIZE, default ${formatRfq(DEFAULT_POLICY.maxLegSize)})
  --lifetime SECONDS     quote lifetime, clamped to max_quote_expires_at (env LEGWORK_QUOTE_LIFETIME, default ${DEFAULT_POLICY.quoteLifetimeSeconds})
  --verbose              also log RFQs closed by other makers
  --compete              competitive RFQs (design.md 18): quote at once, keep the live quote current:
    --replace-bps N        quote again when the package mid moves more than N bps (default ${DEFAULT_COMPETE.replaceOnMoveBps})
    --max-data-age SECONDS withdraw the live quotes when the index is older (default ${DEFAULT_COMPETE.maxDataAgeSeconds})
  --name NAME            the name takers see in the maker directory (rfq.maker.set_profile, at start)
  --listed               list the maker in the directory (rfq.makers)
  --help

limits, set at start with rfq.maker.set_limits over those the account has (quotes they refuse are logged):
${LIMIT_USAGE}

The wallet's account must exist with the quoter role (an admin creates it:
POST /v1/admin/accounts { "wallet": "<wallet>", "roles": ["quoter"] }) and hold USDC to fund its side.`;

const FLAGS = {
  url: 'string',
  seed: 'string',
  'spread-bps': 'string',
  'min-spread': 'string',
  'max-legs': 'string',
  'max-size': 'string',
  lifetime: 'string',
  verbose: 'boolean',
  compete: 'boolean',
  'replace-bps': 'string',
  'max-data-age': 'string',
  name: 'string',
  listed: 'boolean',
  help: 'boolean',
  ...LIMIT_FLAGS,
} as const;

/** `--compete` and its settings; undefined without it (a setting without it is a usage error). */
function competeFromFlags(flags: ReturnType<typeof parseArgs>['flags']): CompeteOptions | undefined {
  if (!flags.compete) {
    if (flags['replace-bps'] !== undefined || flags['max-data-age'] !== undefined) throw new UsageError('--replace-bps and --max-data-age go with --compete');
    return undefined;
  }
  return {
    replaceOnMoveBps: intSetting('--replace-bps', flags['replace-bps'] as string | undefined, DEFAULT_COMPETE.replaceOnMoveBps, 1),
    maxDataAgeSeconds: intSetting('--max-data-age', flags['max-data-age'] as string | undefined, DEFAULT_COMPETE.maxDataAgeSeconds, 1),
  };
}

async function main(): Promise<number> {
  const { flags, positional } = parseArgs(process.argv.slice(2), FLAGS);
  if (flags.help) {
    console.log(USAGE);
    return 0;
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument ${positional[0]}`);
  const log = logger('maker');
  const url = httpUrlOf(setting(flags, 'url', 'LEGWORK_URL', 'http://127.0.0.1:3000')!);
  const seedHex = setting(flags, 'seed', 'LEGWORK_MAKER_SEED') ?? setting(flags, 'seed', 'LEGWORK_SEED');
  let keypair;
  if (seedHex) keypair = keypairFromHex(seedHex, 'the maker seed');
  else {
    const generated = generateKeypair();
    keypair = generated.keypair;
    log(`no seed given: generated wallet ${keypair.wallet}`);
    log(`seed (keep it to reuse this wallet): LEGWORK_MAKER_SEED=${generated.seedHex}`);
  }
  const maker = new ReferenceMaker({
    url,
    keypair,
    log,
    verbose: flags.verbose === true,
    limits: limitsFromFlags(flags) ?? undefined,
    compete: competeFromFlags(flags),
    profile: flags.name !== undefined || flags.listed ? { name: flags.name as string | undefined, listed: flags.listed ? true : undefined } : undefined,
    policy: {
      spreadBps: intSetting('--spread-bps', setting(flags, 'spread-bps', 'LEGWORK_SPREAD_BPS'), DEFAULT_POLICY.spreadBps),
      minHalfSpread: microSetting('--min-spread', setting(flags, 'min-spread', 'LEGWORK_MIN_SPREAD'), DEFAULT_POLICY.minHalfSpread),
      maxLegs: intSetting('--max-legs', setting(flags, 'max-legs', 'LEGWORK_MAX_LEGS'), DEFAULT_POLICY.maxLegs, 1),
      maxLegSize: microSetting('--max-size', setting(flags, 'max-size', 'LEGWORK_MAX_SIZE'), DEFAULT_POLICY.maxLegSize),
      quoteLifetimeSeconds: intSetting('--lifetime', setting(flags, 'lifetime', 'LEGWORK_QUOTE_LIFETIME'), DEFAULT_POLICY.quoteLifetimeSeconds, 1),
    },
  });
  log(`connecting to ${url}`);
  await maker.start();
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`${signal}: stopping (quotes given stay firm until they expire)`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await maker.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`maker: ${reason(error)}`);
    process.exit(1);
  },
);
