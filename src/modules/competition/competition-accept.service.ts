import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { RfqError } from '../../common/errors/app-error';
import type { CompanionRead } from '../rfq/competition-port';
import type { RfqRecord, StoredQuote } from '../rfq/domain/rfq-record';
import type { AcceptRow } from '../rfq/rfq-move';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository, type StoredCompetitiveQuote } from './competition.repository';
import { isBest, priceOf } from './domain/competition';

/** RFQ_QUOTE_EXPIRED for the accept of a quote no longer live (undefined: ended) or past its expires_at. */
const quoteExpired = (live: StoredCompetitiveQuote | undefined) =>
  new RfqError('RFQ_QUOTE_EXPIRED', `the quote ${live ? `expired at ${live.expiresAt}` : 'has ended'}`);

/** The competitive quote as the RFQ's row holds its accepted one. */
const storedQuote = (q: StoredCompetitiveQuote): StoredQuote => ({
  quoteId: q.quoteId,
  makerAccountId: q.makerAccountId,
  makerWallet: q.makerWallet,
  quoteNonce: q.quoteNonce,
  bid: q.bid,
  ask: q.ask,
  issuedAt: q.issuedAt,
  expiresAt: q.expiresAt,
  makerSignature: q.makerSignature,
});

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
  ) {}

  /**
   * The subqueries of rfq.accept's one read (RfqLookupService.findByQuoteIdWith): a competitive
   * quote's RFQ id, and the quote itself (read with the RFQ, in one snapshot: an RFQ read out of
   * quoted by this quote's end finds it ended, and the accept answers RFQ_QUOTE_EXPIRED).
   */
  readonly quoteReads: { rfqId: CompanionRead; quote: CompanionRead } = {
    rfqId: (param) => this.quotes.rfqIdOf(param),
    quote: (param) => this.quotes.quoteJsonOf(param),
  };

  /** The competitive quote of `found.rfq` that the read of `quoteReads` found with it; null when there is none. */
  foundQuote(found: { rfq: RfqRecord; companion: unknown }): FoundQuote | null {
    const quote = this.quotes.fromJson(found.companion);
    return quote && quote.rfqId === found.rfq.id ? { rfq: found.rfq, quote } : null;
  }

  /**
   * The move with the accept row, the quote becoming the RFQ's `quote`. RFQ_QUOTE_EXPIRED when the
   * quote has ended (or its time has come); null when the RFQ is no longer quoted. `best`: the
   * accepted price was the best live price on its side at that moment.
   */
  async accept(rfq: RfqRecord, quote: StoredCompetitiveQuote, row: AcceptRow): Promise<{ moved: RfqRecord; best: boolean } | null> {
    const nowMs = this.clock.nowMs();
    return this.db.tx(async (tx) => {
      // The move takes the RFQ's row, where every change of its quotes queues (the quote's terms
      // never change: those read before are the ones stored); a refusal below rolls it back.
      const moved = await this.transitions.moveToAcceptedWithin(
        tx,
        { rfqId: rfq.id, from: 'quoted', to: 'accepted', at: row.acceptedAt, changes: { quote: storedQuote(quote) } },
        row,
      );
      if (!moved) return this.notMoved(tx, rfq.id, quote.quoteId, nowMs);
      // Every quote (the transcript lists them), read once under the row: the live ones are those not ended.
      const all = await this.quotes.allOf(rfq.id, tx);
      const live = all.filter((q) => q.end === null);
      const mine = live.find((q) => q.quoteId === quote.quoteId);
      if (!mine || mine.expiresAt * 1000 <= nowMs) throw quoteExpired(mine);
      const best = isBest(mine, row.side, live);
      // Under the RFQ's row every live quote ends here (the winner accepted, the others traded away):
      // the transcript is signed from the quotes read, and the ends, the transcript and the makers'
      // traded_away events are stored in one statement.
      const closing = all.map((q): StoredCompetitiveQuote =>
        q.end === null ? { ...q, end: q.quoteId === mine.quoteId ? 'accepted' : 'traded_away', endedAtMs: nowMs } : q,
      );
      const accepted = { quoteId: mine.quoteId, side: row.side, price: priceOf(mine, row.side), atMs: nowMs, best };
      const transcript = this.close.transcriptOf(moved, nowMs, accepted, closing);
      const ends = this.quotes.endWonWith(
        rfq.id,
        mine.quoteId,
        live.map((q) => q.quoteId),
        nowMs,
        transcript,
      );
      await this.close.tellEnded(
        tx,
        live.filter((q) => q.quoteId !== mine.quoteId),
        'traded_away',
        nowMs,
        ends,
      );
      this.close.closeFor(tx, moved, new Set(live.map((q) => q.makerAccountId)));
      return { moved, best };
    });
  }

  /**
   * The RFQ did not move from quoted: read under its row why. A cancelled RFQ is the caller's
   * conflict (null, as for a seed RFQ); otherwise an ended quote is expired, whatever the RFQ's state.
   */
  private async notMoved(tx: Tx, rfqId: string, quoteId: string, nowMs: number): Promise<null> {
    const locked = await this.transitions.lock(tx, rfqId);
    if (!locked || locked.cancelledAt !== null) return null;
    const mine = await this.quotes.find(quoteId, tx);
    const live = mine?.end === null ? mine : undefined;
    if (!live || live.expiresAt * 1000 <= nowMs) throw quoteExpired(live);
    return null;
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
