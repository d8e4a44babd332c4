import { Injectable } from '@nestjs/common';
import { formatRfq } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { CompetitionHooks, type KeptCompetitiveQuote } from './competition-port';
import { competitiveQuoteState, mergeNewestFirst } from './domain/maker-quote-state';
import { type MakerQuoteItem, type MakerQuotesQuery, MakerQuotesRepository } from './maker-quotes.repository';
import { rfqCaller } from './rfq.rpc';

interface MakerQuotesParams {
  state: 'live' | 'all';
  after: string | null;
  limit: number;
}

type Place = MakerQuotesQuery['after'];

/**
 * rfq.maker.quotes (docs/spec/design.md section 19): a maker's own quotes, newest first, to
 * reconcile a lost reply. Seed quotes are read here (rfqs), competitive ones through the
 * competition module's port (its table); both pages follow one keyset (received_at_ms, quote_id)
 * and are merged, so one cursor pages across both kinds.
 */
@Injectable()
export class MakerQuotesRpc {
  constructor(
    private readonly quotes: MakerQuotesRepository,
    private readonly competition: CompetitionHooks,
    private readonly clock: Clock,
  ) {}

  /** One more row than the page is read from each kind: `next_cursor` only when more remain. */
  @RpcMethod('rfq.maker.quotes')
  async list(params: MakerQuotesParams, context: RpcContext): Promise<{ items: MakerQuoteItem[]; next_cursor?: string }> {
    const { accountId } = rfqCaller(context);
    const after = params.after === null ? null : await this.place(accountId, params.after);
    if (params.after !== null && !after) throw new RfqError('RFQ_NOT_FOUND', `no quote ${params.after} of this maker`, { reason: 'cursor_not_found' });
    const query: MakerQuotesQuery = { makerAccountId: accountId, live: params.state === 'live', after, limit: params.limit + 1, now: this.clock.now() };
    const [seed, competitive] = await Promise.all([this.quotes.page(query), this.competitive(query)]);
    const rows = mergeNewestFirst(seed, competitive, params.limit + 1);
    const items = rows.slice(0, params.limit);
    return rows.length > params.limit ? { items, next_cursor: items[items.length - 1].quote_id } : { items };
  }

  /** The cursor quote's place: a competitive quote of the maker's, else a seed one; null when neither. */
  private async place(accountId: number, quoteId: string): Promise<Place> {
    const kept = await this.competition.active?.quote(quoteId);
    if (kept) return kept.makerAccountId === accountId ? { receivedAtMs: kept.receivedAtMs, quoteId } : null;
    return this.quotes.place(accountId, quoteId);
  }

  /** The page's competitive quotes as items; the accepted ones' states from their RFQs (one read). */
  private async competitive(query: MakerQuotesQuery): Promise<MakerQuoteItem[]> {
    const port = this.competition.active;
    if (!port) return [];
    const kept = await port.makerQuotes(query);
    const states = await this.quotes.rfqStates(kept.filter((q) => q.end === 'accepted').map((q) => q.rfqId));
    return kept.map((q) => toItem(q, competitiveQuoteState(q.end, states.get(q.rfqId), q.expiresAt, query.now)));
  }
}

const toItem = (q: KeptCompetitiveQuote, state: MakerQuoteItem['state']): MakerQuoteItem => ({
  quote_id: q.quoteId,
  rfq_id: q.rfqId,
  quote_nonce: q.quoteNonce.toString(),
  bid: formatRfq(q.bid),
  ask: formatRfq(q.ask),
  issued_at: q.issuedAt,
  expires_at: q.expiresAt,
  received_at_ms: q.receivedAtMs,
  state,
});
