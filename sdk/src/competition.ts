/**
 * What a taker of a competitive RFQ (docs/spec/design.md 18) needs besides the plain methods:
 * which live quote is the best on a side, and the exchange key to check a transcript with.
 */
import { type Side, type TranscriptCheck, type TranscriptKey, verifyTranscript } from '@legwork/protocol';
import { LegworkHttp } from './http';
import type { Keypair } from './keys';
import { signAccept } from './payloads';
import type { AcceptParams, AcceptResult, LiveQuote, RfqView, TranscriptResult } from './types';

/** `acceptBest` found nothing to accept: a seed RFQ, or no live quote on that side. */
export class NoBestQuoteError extends Error {
  constructor(
    readonly rfqId: string,
    readonly side: Side,
    message: string,
  ) {
    super(message);
    this.name = 'NoBestQuoteError';
  }
}

/**
 * The live quote a taker on `side` takes at the best price: a buy takes the lowest ask
 * (`best.ask`), a sell the highest bid (`best.bid`), as the exchange ranked them.
 * @throws {NoBestQuoteError} for a seed RFQ or when no live quote is best on that side
 */
export function bestQuote(rfq: Pick<RfqView, 'rfq_id' | 'state' | 'best' | 'quotes'>, side: Side): LiveQuote {
  if (rfq.best === null || rfq.quotes === null) throw new NoBestQuoteError(rfq.rfq_id, side, `rfq ${rfq.rfq_id} is not competitive: it has no best quote`);
  const id = side === 'buy' ? rfq.best.ask : rfq.best.bid;
  const quote = id === null ? undefined : rfq.quotes.find((q) => q.quote_id === id);
  if (!quote) {
    const what = side === 'buy' ? 'ask to buy at' : 'bid to sell at';
    throw new NoBestQuoteError(rfq.rfq_id, side, `rfq ${rfq.rfq_id} (${rfq.state}) has no live ${what}`);
  }
  return quote;
}

/** A transcript and whether it verifies against the exchange key. */
export interface CheckedTranscript {
  signed: TranscriptResult;
  check: TranscriptCheck;
}

/** `rfq.transcript` of the RFQ checked with `keys` (or the keys `keys()` reads). */
export async function checkedTranscript(
  taker: { transcript(rfqId: string): Promise<TranscriptResult> },
  rfqId: string,
  keys: TranscriptKey | (() => Promise<TranscriptKey>),
): Promise<CheckedTranscript> {
  const signed = await taker.transcript(rfqId);
  return { signed, check: verifyTranscript(signed, typeof keys === 'function' ? await keys() : keys) };
}

/** The HTTP base of a trading WebSocket URL: `ws://host:3000/client` → `http://host:3000`. */
function httpBaseOf(wsUrl: string): string {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  return url.origin;
}

/** The exchange's published keys (`GET /v1/exchange/keys`) of the server behind `wsUrl`, or at `httpUrl`. */
export async function exchangeKeysOf(wsUrl: string, httpUrl?: string): Promise<Awaited<ReturnType<LegworkHttp['exchangeKeys']>>['keys']> {
  return (await new LegworkHttp(httpUrl ?? httpBaseOf(wsUrl)).exchangeKeys()).keys;
}

/** Options of `LegworkClient.acceptBest`. */
export interface AcceptBestOptions {
  /** The taker's key (default: the key the client signed in with). */
  keypair?: Keypair;
  /** The accept expires in this many seconds (default 30), or at the quote's `expires_at` when that is earlier. */
  expiresInSeconds?: number;
}

/** The result of `acceptBest`: the accept's result and the quote it took. */
export type AcceptedBest = AcceptResult & { quote: LiveQuote };

/** What `acceptBest` needs of the client. */
interface Taker {
  getRfq(rfqId: string): Promise<RfqView>;
  accept(params: AcceptParams): Promise<AcceptResult>;
}

/** Reads the RFQ, signs the accept of its best quote on `side` and sends it; the result and the quote taken. */
export async function acceptBest(taker: Taker, rfqId: string, side: Side, options: AcceptBestOptions): Promise<AcceptedBest> {
  const keypair = options.keypair;
  if (!keypair) throw new Error('acceptBest signs the accept: sign in with a keypair or give options.keypair');
  const quote = bestQuote(await taker.getRfq(rfqId), side);
  const expiresAt = Math.min(Math.floor(Date.now() / 1000) + (options.expiresInSeconds ?? 30), quote.expires_at);
  const result = await taker.accept(signAccept(keypair, { rfqId, quoteId: quote.quote_id, side, expiresAt }));
  return { ...result, quote };
}
