/**
 * `npm run cli -- <command>`: a taker's command line over `@legwork/sdk`.
 *
 *   export LEGWORK_URL=http://127.0.0.1:3000 LEGWORK_SEED=<64 hex>
 *   npm run -s cli -- instruments --asset SOL
 *   npm run -s cli -- rfq create --leg SOL-29NOV25-150-C:10 --leg SOL-29NOV25-160-C:-10
 *   npm run -s cli -- rfq create --compete --leg SOL-29NOV25-150-C:10   (several makers quote: rfq quotes <rfq_id>)
 *   npm run -s cli -- accept <quote_id> --side buy
 *   npm run -s cli -- rfq cancel <rfq_id>
 *   npm run -s cli -- maker limits --max-open-quotes 10 --max-open-delta SOL:100
 *   npm run -s cli -- backup --out legwork.backup --admin-token <ADMIN_TOKEN>
 */
import {
  type Instrument,
  type LegworkClient,
  LegworkHttp,
  RFQ_STATES,
  type RfqNotification,
  type RfqState,
  type RfqView,
  signAccept,
  verifyQuote,
  type Keypair,
} from '@legwork/sdk';
import {
  UsageError,
  clock,
  describeLegs,
  generateKeypair,
  httpUrlOf,
  intSetting,
  keypairFromHex,
  nowSeconds,
  parseArgs,
  parseLeg,
  reason,
  setting,
} from './common';
import { USAGE } from './cli-usage';
import { Session, TokenCache } from './session';
import { journalLines, receiptStatus, walkJournal } from './verify';
import { LIMIT_FLAGS, cancelCommand, makerCommand } from './desk';
import { Refusal, backupCommand, restoreCommand } from './backup';
import { verifyTranscriptCommand } from './transcript';
import { competitionOf, gatherQuotes, makersCommand, quoteLines, quotesCommand, transcriptCommand } from './competition';
import { verifyAuditCommand } from './audit-verify';
import { balanceLines, cashText, fillLines, instrumentLines, positionLines, rfqLines, table } from './format';

const FLAGS = {
  url: 'string',
  seed: 'string',
  token: 'string',
  json: 'boolean',
  help: 'boolean',
  'no-cache': 'boolean',
  leg: 'strings',
  wait: 'string',
  state: 'strings',
  side: 'string',
  timeout: 'string',
  status: 'string',
  asset: 'string',
  expiry: 'string',
  replace: 'boolean',
  all: 'boolean',
  out: 'string',
  in: 'string',
  'data-dir': 'string',
  'admin-token': 'string',
  'signing-key': 'string',
  key: 'string',
  head: 'string',
  service: 'string',
  compete: 'boolean',
  maker: 'strings',
  verify: 'boolean',
  ...LIMIT_FLAGS,
} as const;

const STATES: readonly RfqState[] = RFQ_STATES;
const ENDED: RfqState[] = ['filled', 'failed', 'expired', 'declined'];

type Flags = ReturnType<typeof parseArgs>['flags'];

function print(flags: Flags, json: unknown, lines: () => string[]): void {
  if (flags.json) console.log(JSON.stringify(json, null, 2));
  else for (const line of lines()) console.log(line);
}

async function instrumentsFor(client: LegworkClient, rfq: Pick<RfqView, 'legs'>): Promise<Instrument[]> {
  const all = await client.getInstruments({ include_settled: true });
  const wanted = new Set(rfq.legs.map((l) => l.instrument));
  return all.filter((i) => wanted.has(i.symbol));
}

/** Checks the maker's signature and the quote id against the RFQ, with this server's signing domain. */
async function verified(client: LegworkClient, rfq: RfqView): Promise<boolean | undefined> {
  if (!rfq.quote) return undefined;
  const config = await client.getMarketConfig();
  return verifyQuote(rfq, await instrumentsFor(client, rfq), { domain: config.quote_domain });
}

/** Waits for an `rfq` event of this RFQ in one of `events`, else (timeout) reads its state. */
async function waitFor(
  client: LegworkClient,
  events: AsyncIterableIterator<RfqNotification>,
  rfqId: string,
  wanted: readonly string[],
  timeoutMs: number,
  onEvent?: (n: RfqNotification) => void,
): Promise<RfqView> {
  const timer = setTimeout(() => void events.return?.(), timeoutMs);
  try {
    for await (const n of events) {
      if (n.rfq.rfq_id !== rfqId) continue;
      onEvent?.(n);
      if (wanted.includes(n.event)) return n.rfq;
    }
  } finally {
    clearTimeout(timer);
  }
  return client.getRfq(rfqId);
}

async function signIn(session: Session, flags: Flags, generated: string | null): Promise<number> {
  await session.ws({ allowNoAccount: true, fresh: true });
  const auth = session.session!;
  if (generated) console.error(`generated a new wallet; its seed (keep it, then export LEGWORK_SEED=...): ${generated}`);
  print(flags, auth, () => [
    `wallet   ${auth.wallet}`,
    `account  ${auth.account_id ?? '(none: ask an admin to create it, e.g. with roles ["taker"])'}`,
    `roles    ${auth.roles.join(', ') || '(none)'}`,
    `token    ${auth.session_token}`,
    '',
    'reuse the session without signing again: export LEGWORK_TOKEN=<token>',
  ]);
  return auth.account_id === null && !generated ? 1 : 0;
}

/** `rfq create --leg SYMBOL:QTY ... [--wait S]`: the RFQ, then its quote (checked) or end, within the wait. */
async function rfqCreate(session: Session, flags: Flags, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  const legs = ((flags.leg as string[] | undefined) ?? []).map(parseLeg);
  if (legs.length === 0) throw new UsageError('rfq create needs at least one --leg SYMBOL:QTY');
  const competition = competitionOf(flags);
  const waitSeconds = intSetting('--wait', setting(flags, 'wait', null), 10);
  const client = await session.ws();
  const events = waitSeconds > 0 ? client.notifications('rfq') : null;
  if (events) await client.subscribeRfq(); // before create: no event can be missed
  const rfq = await client.createRfq({ legs, competition });
  if (!flags.json) for (const line of rfqLines(rfq)) console.log(line);
  if (!events) {
    if (flags.json) console.log(JSON.stringify(rfq, null, 2));
    return 0;
  }
  if (!flags.json) console.log(`waiting up to ${waitSeconds} s for ${competition ? 'the competing quotes' : 'a quote'}...`);
  if (competition) {
    const quoted = await gatherQuotes(client, events, rfq, waitSeconds * 1000);
    print(flags, quoted, () => ['', ...quoteLines(quoted)]);
    return quoted.state === 'quoted' || quoted.state === 'pending' ? 0 : 1;
  }
  const now = await waitFor(client, events, rfq.rfq_id, ['quoted', 'declined', 'expired', 'failed'], waitSeconds * 1000);
  const ok = await verified(client, now);
  print(flags, { ...now, quote_verified: ok ?? null }, () => [
    ...rfqLines(now, ok),
    ...(now.state === 'quoted' && now.quote
      ? [
          '',
          `buy:  npm run -s cli -- accept ${now.quote.quote_id} --side buy    (at the ask: ${cashText('buy', now.quote)})`,
          `sell: npm run -s cli -- accept ${now.quote.quote_id} --side sell   (at the bid: ${cashText('sell', now.quote)})`,
        ]
      : now.state === 'pending'
        ? ['', `no quote yet: npm run -s cli -- rfq get ${now.rfq_id}`]
        : []),
  ]);
  return now.state === 'quoted' || now.state === 'pending' ? 0 : 1;
}

/** `rfq list [--state S ...]`: every live RFQ of the account, all pages. */
async function rfqList(session: Session, flags: Flags, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  const states = (flags.state as string[] | undefined) ?? [];
  for (const s of states) if (!STATES.includes(s as RfqState)) throw new UsageError(`--state must be one of ${STATES.join(', ')}`);
  const client = await session.ws();
  const items: RfqView[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listRfqs({ states: states.length ? (states as RfqState[]) : undefined, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  print(flags, items, () =>
    items.length === 0
      ? ['(no live RFQs)']
      : table(
          ['rfq', 'state', 'created', 'legs', 'bid', 'ask', 'quote'],
          items.map((r) => [r.rfq_id, r.state, clock(r.created_at), describeLegs(r.legs), r.quote?.bid ?? '', r.quote?.ask ?? '', r.quote?.quote_id ?? '']),
        ),
  );
  return 0;
}

async function rfqCommand(session: Session, flags: Flags, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') return rfqCreate(session, flags, rest);
  if (sub === 'list') return rfqList(session, flags, rest);
  if (sub === 'cancel' || sub === 'cancel-all') {
    const out = await cancelCommand(await session.ws(), sub, rest);
    print(flags, out.json, () => out.lines);
    return out.code;
  }
  if (sub === 'quotes' || sub === 'transcript') {
    const client = await session.ws();
    const out = sub === 'quotes' ? await quotesCommand(client, rest) : await transcriptCommand(client, flags, rest, session.url);
    print(flags, out.json, () => out.lines);
    return out.code;
  }
  if (sub === 'get') {
    if (rest.length !== 1) throw new UsageError('usage: rfq get <rfq_id>');
    const client = await session.ws();
    const rfq = await client.getRfq(rest[0]);
    const ok = await verified(client, rfq);
    print(flags, { ...rfq, quote_verified: ok ?? null }, () => rfqLines(rfq, ok));
    return 0;
  }
  throw new UsageError(
    `unknown rfq command ${sub === undefined ? '(none)' : JSON.stringify(sub)}: create, list, get, quotes, transcript, cancel or cancel-all`,
  );
}

/**
 * The taker's RFQ holding this quote (full id, or an unambiguous prefix of 8+ characters), its
 * `quote` being that quote: a seed RFQ's one quote or one of a competitive RFQ's live quotes.
 */
async function findQuoted(client: LegworkClient, quoteId: string): Promise<RfqView> {
  if (!/^[0-9a-f]{8,64}$/.test(quoteId)) throw new UsageError('a quote id is 64 lowercase hex characters (a unique prefix of 8 or more will do)');
  const found: RfqView[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listRfqs({ cursor });
    for (const r of page.items) for (const q of [r.quote, ...(r.quotes ?? [])]) if (q?.quote_id.startsWith(quoteId)) found.push({ ...r, quote: q });
    cursor = page.next_cursor;
  } while (cursor);
  if (found.length === 0) throw new Error(`none of your live RFQs holds quote ${quoteId}`);
  if (found.length > 1) throw new UsageError(`quote id prefix ${quoteId} is ambiguous`);
  return found[0];
}

async function accept(session: Session, flags: Flags, args: string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError('usage: accept <quote_id> --side buy|sell');
  const side = flags.side;
  if (side !== 'buy' && side !== 'sell') throw new UsageError('accept needs --side buy or --side sell');
  const timeoutSeconds = intSetting('--timeout', setting(flags, 'timeout', null), 60, 1);
  const client = await session.ws();
  const rfq = await findQuoted(client, args[0]);
  const q = rfq.quote!;
  if (rfq.state !== 'quoted') throw new Error(`rfq ${rfq.rfq_id} is ${rfq.state}, not quoted: it cannot be accepted`);
  if (!(await verified(client, rfq))) throw new Error(`the quote of rfq ${rfq.rfq_id} does not verify against its legs and the maker's wallet: not accepting`);
  const now = nowSeconds();
  if (q.expires_at < now) throw new Error(`quote ${q.quote_id} expired at ${clock(q.expires_at)} UTC`);
  const log = (line: string) => !flags.json && console.log(line);
  log(`rfq ${rfq.rfq_id}: [${describeLegs(rfq.legs)}]`);
  log(`accepting: ${side === 'buy' ? `buy at the ask ${q.ask}` : `sell at the bid ${q.bid}`}, ${cashText(side, q)} (maker signature verified)`);
  const events = client.notifications('rfq');
  await client.subscribeRfq();
  if (!keypair) throw new UsageError('accept signs with your wallet key: set LEGWORK_SEED (a session token alone cannot sign)');
  const params = signAccept(keypair, { rfqId: rfq.rfq_id, quoteId: q.quote_id, side, expiresAt: Math.min(now + 30, q.expires_at) });
  await client.accept(params);
  const final = await waitFor(client, events, rfq.rfq_id, ENDED, timeoutSeconds * 1000, (n) => log(`  ${clock(n.rfq.updated_at)} ${n.event}`));
  print(flags, final, () => rfqLines(final));
  if (final.state !== 'filled') {
    if (!flags.json)
      console.error(
        ENDED.includes(final.state) ? `not filled: ${final.state}` : `still ${final.state} after ${timeoutSeconds} s: check with rfq get ${final.rfq_id}`,
      );
    return 1;
  }
  return 0;
}

/** The wallet key, when a seed was given (accept signs with it). */
let keypair: Keypair | null = null;

async function main(): Promise<number> {
  const { flags, positional } = parseArgs(process.argv.slice(2), FLAGS);
  const [command, ...args] = positional;
  if (flags.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined && !flags.help ? 2 : 0;
  }
  const url = httpUrlOf(setting(flags, 'url', 'LEGWORK_URL', 'http://127.0.0.1:3000')!);
  const seed = setting(flags, 'seed', 'LEGWORK_SEED');
  const token = setting(flags, 'token', 'LEGWORK_TOKEN');
  let generated: string | null = null;
  if (seed) keypair = keypairFromHex(seed, 'LEGWORK_SEED');
  else if (command === 'sign-in' && !token) {
    const fresh = generateKeypair();
    keypair = fresh.keypair;
    generated = fresh.seedHex;
  }
  if (command === 'backup' || command === 'restore' || command === 'verify-transcript' || command === 'verify-audit') {
    const service = setting(flags, 'service', 'LEGWORK_SERVICE_NAME', 'Legwork')!;
    const out =
      command === 'verify-audit'
        ? await verifyAuditCommand(flags, service)
        : await { backup: backupCommand, restore: restoreCommand, 'verify-transcript': verifyTranscriptCommand }[command](flags, args);
    print(flags, out.json, () => out.lines);
    return out.code;
  }
  if (command === 'verify-journal') {
    const walk = await walkJournal(new LegworkHttp(url));
    print(flags, walk, () => journalLines(walk));
    return walk.check.ok ? 0 : 1;
  }
  const session = new Session(url, keypair, command === 'sign-in' ? undefined : token, flags['no-cache'] ? null : TokenCache.default());
  try {
    return await runCommand(session, flags, command, args, generated);
  } finally {
    await session.close();
  }
}

/** One command of a signed-in (or signing-in) session. */
async function runCommand(session: Session, flags: Flags, command: string, args: string[], generated: string | null): Promise<number> {
  switch (command) {
    case 'sign-in':
      if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
      if (!keypair) throw new UsageError('sign-in needs LEGWORK_SEED (or none at all, to generate a wallet)');
      return await signIn(session, flags, generated);
    case 'instruments': {
      const client = await session.ws();
      const rows = await client.getInstruments({
        asset: setting(flags, 'asset', null),
        expiry: flags.expiry ? intSetting('--expiry', flags.expiry as string, 0) : undefined,
      });
      print(flags, rows, () => instrumentLines(rows));
      return 0;
    }
    case 'rfq':
      return await rfqCommand(session, flags, args);
    case 'accept':
      return await accept(session, flags, args);
    case 'maker':
    case 'makers': {
      const client = await session.ws();
      const out = command === 'makers' ? await makersCommand(client, args) : await makerCommand(client, flags, args);
      print(flags, out.json, () => out.lines);
      return out.code;
    }
    case 'positions': {
      const status = setting(flags, 'status', null, 'open');
      if (status !== 'open' && status !== 'settled' && status !== 'all') throw new UsageError('--status is open, settled or all');
      const { rows } = await session.http((http) => http.rfqPositions({ status }));
      print(flags, rows, () => positionLines(rows));
      return 0;
    }
    case 'balances': {
      const { rows } = await session.http((http) => http.balances());
      print(flags, rows, () => balanceLines(rows));
      return 0;
    }
    case 'fills': {
      const { rows } = await session.http((http) => http.rfqFills());
      const { keys } = await new LegworkHttp(session.url).exchangeKeys();
      const checked = rows.map((row) => ({ ...row, receipt_status: receiptStatus(row, keys, keypair?.wallet) }));
      print(flags, checked, () => fillLines(checked));
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof Refusal) {
      console.error(`refused: ${error.message}`);
      process.exit(1);
    }
    const text = reason(error);
    console.error(`error: ${text}`);
    if (/nonce requests per minute/.test(text))
      console.error('(sign-in nonces are limited per client address; the CLI caches its session token, so this passes within a minute)');
    process.exit(1);
  },
);
