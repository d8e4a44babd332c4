import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { logger } from '../../common/logging/logger';
import type { RfqCaller } from '../../common/rpc/rfq-caller';
import { MakerLimitsService, type SeenQuotes } from '../maker-limits/maker-limits.service';
import type { CheckedQuote } from './competition-port';
import type { RespondResult } from './domain/respond-replay';
import type { RespondCommand } from './domain/rfq-params';
import { type RfqRecord, quoteOf } from './domain/rfq-record';
import { QuoteChecksService, nonceRefusal } from './quote-checks.service';
import { RfqExpiryService } from './rfq-expiry.service';
import { MoveRefused, RfqTransitionsService } from './rfq-transitions.service';

/**
 * The first-wins quote of a seed RFQ, once respond's checks passed: the maker's limits and, in one
 * transaction with them where they bound what is out, the move pending → quoted with the nonce.
 */
@Injectable()
export class QuoteTakeService {
  constructor(
    private readonly transitions: RfqTransitionsService,
    private readonly limits: MakerLimitsService,
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly expiry: RfqExpiryService,
    private readonly checks: QuoteChecksService,
  ) {}

  /** The limits and, in one transaction with them where they bound what is out, the first-wins move with the nonce. */
  async take(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    const { rfq, quoteId: id, now } = checked;
    const move = { rfqId: rfq.id, from: 'pending' as const, to: 'quoted' as const, at: now, deadlineAfterMs: this.clock.nowMs() };
    const quote = quoteOf(maker, command, id, move.deadlineAfterMs);

    // One statement: the first-wins move (only while the RFQ is within its deadline) and the nonce
    // high-water mark, refused together when the nonce does not rise.
    let moved: RfqRecord | null;
    let seen: SeenQuotes = null;
    try {
      if (checked.limits && this.limits.serialized(checked.limits)) {
        // Passed on what this instance knows of the maker's quotes: one statement that moves only
        // while they and its limits row are unchanged (docs/rfq.md, "Respond on known quotes").
        // Otherwise, or when it did not move, the transaction decides: it locks the row and reads
        // the quotes.
        const known = this.limits.checkKnown(maker.accountId, checked.limits, rfq, command, this.clock.nowMs());
        moved = known && (await this.transitions.moveToQuotedIfUnchanged(move, quote, known));
        if (known && moved) seen = known.seen;
        // Announced once the transaction commits (RfqTransitionsService.moveToQuotedWithin).
        moved ??= await this.db.tx(async (tx) => {
          const locked = await this.limits.lock(tx, maker.accountId);
          seen = await this.limits.checkLocked(tx, maker.accountId, locked, rfq, command, this.clock.nowMs());
          return this.transitions.moveToQuotedWithin(tx, move, quote);
        });
      } else {
        await this.limits.checkQuote(this.db, maker.accountId, checked.limits, rfq, command, this.clock.nowMs());
        moved = await this.transitions.moveToQuoted(move, quote);
      }
    } catch (error) {
      if (error instanceof MoveRefused) throw nonceRefusal(command.quoteNonce, rfq.id);
      throw error;
    }
    if (!moved) throw await this.checks.closed(maker, rfq.id);
    if (checked.limits) this.limits.quoted(rfq, seen, command.quoteNonce, command.expiresAt);

    logger.event('info', 'rfq quoted', { rfq_id: rfq.id, quote_id: id, maker_account_id: maker.accountId }, 'Rfq');
    await this.expiry.schedule(command.expiresAt);
    return { rfq_id: rfq.id, quote_id: id, state: 'quoted' };
  }
}
