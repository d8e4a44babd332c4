/**
 * `verify-transcript FILE [--key BASE58]`: checks a saved `rfq.transcript` result (docs/spec/design.md
 * section 18), the exchange-signed record of every quote a competitive RFQ received, offline with
 * the exchange's public key, or with the keys the exchange publishes (`GET /v1/exchange/keys`,
 * picked by the transcript's key_id) when only a URL is given. Nothing here trusts the file: the
 * payload must be the canonical bytes of the transcript shown, and the signature the exchange's.
 */
import { readFileSync } from 'node:fs';
import { type ExchangeKeyInfo, LegworkHttp, type RfqTranscript, type SignedTranscript, type TranscriptKey, verifyTranscript } from '@legwork/sdk';
import { type ParsedArgs, UsageError, clock, describeLegs, httpUrlOf, setting, short } from './common';
import { table } from './format';
import { Refusal } from './backup';

type Flags = ParsedArgs['flags'];

interface TranscriptOutcome {
  code: number;
  lines: string[];
  json: unknown;
}

/** The signed transcript of the file: the `rfq.transcript` result, or a JSON-RPC reply holding it. */
function readSignedTranscript(file: string): SignedTranscript {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Refusal(`${file}: ${(error as Error).message}`);
  }
  const value = parsed as { result?: unknown; transcript?: unknown } | null;
  const signed = value && typeof value === 'object' && 'result' in value && !('transcript' in value) ? value.result : value;
  if (!signed || typeof signed !== 'object' || !('transcript' in signed)) throw new Refusal(`${file} is not an rfq.transcript result (no transcript)`);
  return signed as SignedTranscript;
}

/** What the transcript says, in lines: the RFQ, each quote with its end, the accept. */
export function transcriptLines(t: RfqTranscript): string[] {
  const accepted = t.accepted;
  const ms = (at: number) => `${clock(Math.floor(at / 1000))}.${String(at % 1000).padStart(3, '0')}`;
  return [
    `rfq ${t.rfq_id} (${t.service}): [${describeLegs(t.legs)}]`,
    `created ${new Date(t.created_at * 1000).toISOString().slice(0, 10)} ${clock(t.created_at)}, closed ${ms(t.closed_at_ms)} UTC; panel: ${t.makers === null ? 'every quoter' : t.makers.join(', ')}`,
    ...table(
      ['quote', 'maker', 'bid', 'ask', 'received', 'ended', 'end'],
      t.quotes.map((q) => [short(q.quote_id), short(q.maker), q.bid, q.ask, ms(q.received_at_ms), ms(q.ended_at_ms), q.end]),
      [2, 3],
    ),
    accepted === null
      ? 'no accept'
      : `accepted ${short(accepted.quote_id)}: ${accepted.side} at ${accepted.price} at ${ms(accepted.at_ms)}, ${accepted.best ? 'the best price on its side' : 'NOT the best price on its side'}`,
  ];
}

/** The key to check with: --key, else the exchange's published keys (LEGWORK_URL or --url). */
async function keyOf(flags: Flags): Promise<{ key: TranscriptKey; from: string }> {
  const key = setting(flags, 'key', null);
  if (key) return { key, from: '--key' };
  const url = setting(flags, 'url', 'LEGWORK_URL');
  if (!url) throw new UsageError('verify-transcript needs the exchange key: --key BASE58, or LEGWORK_URL (or --url) to read /v1/exchange/keys');
  const { keys }: { keys: ExchangeKeyInfo[] } = await new LegworkHttp(httpUrlOf(url)).exchangeKeys();
  return { key: keys, from: `${httpUrlOf(url)}/v1/exchange/keys` };
}

/** `verify-transcript FILE [--key BASE58]`: exit 0 when it verifies, 1 with the failed check. */
export async function verifyTranscriptCommand(flags: Flags, args: readonly string[]): Promise<TranscriptOutcome> {
  if (args.length !== 1) throw new UsageError('usage: verify-transcript FILE [--key BASE58]');
  const signed = readSignedTranscript(args[0]);
  const { key, from } = await keyOf(flags);
  const check = verifyTranscript(signed, key);
  if (!check.ok) {
    return { code: 1, json: check, lines: [`transcript NOT VERIFIED (${check.fault}): ${check.problem}`] };
  }
  return {
    code: 0,
    json: check,
    lines: [`transcript verified: hash ${check.hash}, signed by exchange key ${check.key_id} (${from})`, ...transcriptLines(check.transcript)],
  };
}
