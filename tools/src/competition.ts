/**
 * The CLI's competitive RFQs (docs/spec/design.md 18): `rfq create --compete [--maker WALLET ...]`
 * waits for the competing quotes, `rfq quotes <id>` shows the live ones with the best marked,
 * `makers` the directory, `rfq transcript <id> [--verify]` the signed record of what was offered.
 */
import type { DirectoryMaker, LegworkClient, LiveQuote, RfqNotification, RfqView } from '@legwork/sdk';
import { type ParsedArgs, UsageError, clock, short } from './common';
import { cashText, rfqLines, table } from './format';
import { transcriptLines } from './transcript';

type Flags = ParsedArgs['flags'];

interface CommandOutcome {
  code: number;
  lines: string[];
  json: unknown;
}

/** After the first quote, how long `rfq create --compete` waits for the others before it shows them. */
const GATHER_MS = 1_500;

/** `competition` of rfq.create from `--compete` and `--maker` (undefined: a seed RFQ). */
export function competitionOf(flags: Flags): { makers?: string[] } | undefined {
  const makers = (flags.maker as string[] | undefined) ?? [];
  if (!flags.compete) {
    if (makers.length > 0) throw new UsageError('--maker names a panel of a competitive RFQ: add --compete');
    return undefined;
  }
  return makers.length > 0 ? { makers } : {};
}

/** The live quotes of a competitive RFQ, the best bid and ask marked, then how to accept. */
export function quoteLines(rfq: RfqView): string[] {
  const quotes = rfq.quotes ?? [];
  if (rfq.best === null) return [...rfqLines(rfq), '', 'not a competitive RFQ: its one quote is above'];
  const mark = (q: LiveQuote, side: 'bid' | 'ask') => (rfq.best?.[side] === q.quote_id ? ' *' : '');
  const lines = [...rfqLines(rfq), ''];
  if (quotes.length === 0) return [...lines, '(no live quote)'];
  lines.push(
    ...table(
      ['quote', 'maker', 'bid', 'ask', 'firm until', 'received'],
      quotes.map((q) => [
        q.quote_id,
        short(q.maker),
        q.bid + mark(q, 'bid'),
        q.ask + mark(q, 'ask'),
        clock(q.expires_at),
        clock(Math.floor(q.received_at_ms / 1000)),
      ]),
      [2, 3],
    ),
    '* the best live bid and ask',
  );
  const best = (side: 'buy' | 'sell') => quotes.find((q) => q.quote_id === (side === 'buy' ? rfq.best?.ask : rfq.best?.bid));
  for (const side of ['buy', 'sell'] as const) {
    const q = best(side);
    if (q)
      lines.push(
        `${`${side}:`.padEnd(5)} npm run -s cli -- accept ${q.quote_id} --side ${side.padEnd(4)}  (best ${side === 'buy' ? 'ask' : 'bid'}: ${cashText(side, q)})`,
      );
  }
  return lines;
}

/**
 * Waits for the quotes of a competitive RFQ: from its first live quote, `GATHER_MS` more for the
 * other makers (or until every maker of the panel quoted), all within `timeoutMs`; then its view.
 */
export async function gatherQuotes(client: LegworkClient, events: AsyncIterableIterator<RfqNotification>, rfq: RfqView, timeoutMs: number): Promise<RfqView> {
  const panel = rfq.competition?.makers?.length ?? Infinity;
  let stopAt = Date.now() + timeoutMs;
  let timer = setTimeout(() => void events.return?.(), timeoutMs);
  try {
    for await (const n of events) {
      if (n.rfq.rfq_id !== rfq.rfq_id) continue;
      if (['declined', 'expired', 'failed'].includes(n.event) || (n.rfq.quotes?.length ?? 0) >= panel) return n.rfq;
      if ((n.rfq.quotes?.length ?? 0) > 0 && Date.now() + GATHER_MS < stopAt) {
        stopAt = Date.now() + GATHER_MS;
        clearTimeout(timer);
        timer = setTimeout(() => void events.return?.(), GATHER_MS);
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return client.getRfq(rfq.rfq_id);
}

/** `rfq quotes <rfq_id>`: the live quotes, the best marked. */
export async function quotesCommand(client: LegworkClient, args: readonly string[]): Promise<CommandOutcome> {
  if (args.length !== 1) throw new UsageError('usage: rfq quotes <rfq_id>');
  const rfq = await client.getRfq(args[0]);
  return { code: 0, json: rfq, lines: quoteLines(rfq) };
}

/** `makers`: the listed makers and their last 7 days. */
export async function makersCommand(client: LegworkClient, args: readonly string[]): Promise<CommandOutcome> {
  if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
  const makers: DirectoryMaker[] = await client.makers();
  const rows = makers.map((m) => {
    const s = m.stats;
    return [
      m.wallet,
      m.name ?? '-',
      String(s.rfqs),
      String(s.quoted),
      s.median_response_ms === null ? '-' : String(s.median_response_ms),
      String(s.cancelled),
      String(s.replaced),
      String(s.won),
    ];
  });
  const lines =
    makers.length === 0
      ? ['(no listed maker)']
      : table(['wallet', 'name', 'rfqs', 'quoted', 'median ms', 'cancelled', 'replaced', 'won'], rows, [2, 3, 4, 5, 6, 7]);
  return { code: 0, json: makers, lines: [...lines, '', 'competitive RFQs of the last 7 days; name a panel with: rfq create --compete --maker WALLET ...'] };
}

/** `rfq transcript <rfq_id> [--verify]`: the signed transcript; with --verify checked against the exchange's published key (exit 1: it does not verify). */
export async function transcriptCommand(client: LegworkClient, flags: Flags, args: readonly string[], httpUrl: string): Promise<CommandOutcome> {
  if (args.length !== 1) throw new UsageError('usage: rfq transcript <rfq_id> [--verify]');
  if (!flags.verify) {
    const signed = await client.transcript(args[0]);
    return { code: 0, json: signed, lines: ['transcript (not verified: add --verify)', ...transcriptLines(signed.transcript)] };
  }
  const { signed, check } = await client.verifiedTranscript(args[0], { httpUrl });
  if (!check.ok) return { code: 1, json: { ...signed, check }, lines: [`transcript NOT VERIFIED (${check.fault}): ${check.problem}`] };
  return {
    code: 0,
    json: { ...signed, check },
    lines: [
      `transcript verified: hash ${check.hash}, signed by exchange key ${check.key_id} (${httpUrl}/v1/exchange/keys)`,
      ...transcriptLines(check.transcript),
    ],
  };
}
