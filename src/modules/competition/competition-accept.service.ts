import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { RfqError } from '../../common/errors/app-error';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import type { AcceptRow } from '../rfq/rfq-move';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository, type StoredCompetitiveQuote } from './competition.repository';
import { isBest, priceOf } from './domain/competition';

/** A competitive quote and its RFQ, as rfq.accept finds them. */
export interface FoundQuote {
  rfq: RfqRecord;
  quote: StoredCompetitiveQuote;
}

/**
 * The accept of a competitive RFQ (docs/spec/design.md 18), asked by the ledger's rfq.accept: in
 * one transaction holding the RFQ's row, quoted → accepted only if the quote named is still live,
 * every other live quote ends `traded_away` (their makers told, their limits usage freed with the
 * commit), the winner's ends `accepted`, and the transcript is written.
 */
@Injectable()
export class CompetitionAcceptService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly quotes: CompetitionRepository,
    private readonly close: CompetitionCloseService,
    private readonly transitions: RfqTransitionsService,
    private readonly lookup: RfqLookupService,
  ) {}

  /** The competitive quote `quoteId` and its RFQ; null when there is none. */
  async findQuote(quoteId: string): Promise<FoundQuote | null> {
    const quote = await this.quotes.find(quoteId);
    if (!quote) return null;
    const rfq = await this.lookup.findById(quote.rfqId);
    if (!rfq) return null;
    // An RFQ read out of quoted may have left it by this quote's end (its last cancelled, replaced
    // or expired): the quote read again now says so, and the accept answers RFQ_QUOTE_EXPIRED.
    if (rfq.state !== 'quoted' && quote.end === null) return { rfq, quote: (await this.quotes.find(quoteId)) ?? quote };
    return { rfq, quote };
  }

  /**
   * The move with the accept row, the quote becoming the RFQ's `quote`. RFQ_QUOTE_EXPIRED when the
   * quote has ended (or its time has come); null when the RFQ is no longer quoted. `best`: the
   * accepted price was the best live price on its side at that moment.
   */
  async accept(rfq: RfqRecord, quote: StoredCompetitiveQuote, row: AcceptRow): Promise<{ moved: RfqRecord; best: boolean } | null> {
    const nowMs = this.clock.nowMs();
    return this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfq.id);
      // A cancelled RFQ is the caller's conflict (as for a seed RFQ); otherwise an ended quote is expired, whatever the RFQ's state.
      if (!locked || locked.cancelledAt !== null) return null;
      const live = await this.quotes.liveOf([rfq.id], tx);
      const mine = live.find((q) => q.quoteId === quote.quoteId);
      if (!mine || mine.expiresAt * 1000 <= nowMs) throw new RfqError('RFQ_QUOTE_EXPIRED', `the quote ${mine ? `expired at ${mine.expiresAt}` : 'has ended'}`);
      if (locked.state !== 'quoted') return null;
      const best = isBest(mine, row.side, live);
      const stored: StoredQuote = {
        quoteId: mine.quoteId,
        makerAccountId: mine.makerAccountId,
        makerWallet: mine.makerWallet,
        quoteNonce: mine.quoteNonce,
        bid: mine.bid,
        ask: mine.ask,
        issuedAt: mine.issuedAt,
        expiresAt: mine.expiresAt,
        makerSignature: mine.makerSignature,
      };
      const moved = await this.transitions.moveToAcceptedWithin(
        tx,
        { rfqId: rfq.id, from: 'quoted', to: 'accepted', at: row.acceptedAt, changes: { quote: stored } },
        row,
      );
      if (!moved) return null;
      await this.quotes.end(tx, [mine.quoteId], 'accepted', nowMs);
      const lost = await this.quotes.end(
        tx,
        live.filter((q) => q.quoteId !== mine.quoteId).map((q) => q.quoteId),
        'traded_away',
        nowMs,
      );
      await this.close.tellEnded(tx, lost, 'traded_away', nowMs);
      this.close.closeFor(tx, moved, new Set(live.map((q) => q.makerAccountId)));
      await this.close.writeTranscript(tx, moved, nowMs, { quoteId: mine.quoteId, side: row.side, price: priceOf(mine, row.side), atMs: nowMs, best });
      return { moved, best };
    });
  }

  /** `best` of the accept that ended the RFQ's competition, from its transcript (idempotent accept); false when none. */
  async acceptedBest(rfqId: string): Promise<boolean> {
    const transcript = await this.quotes.transcript(rfqId);
    if (!transcript) return false;
    const parsed = JSON.parse(transcript.payload.toString('utf8')) as { accepted: { best: boolean } | null };
    return parsed.accepted?.best ?? false;
  }
}
export type { StoredCompetitiveQuote } from './competition.repository';
