import { Injectable } from '@nestjs/common';
import { quoteId } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { MakerLimitsService } from '../maker-limits/maker-limits.service';
import type { DeclineCommand, RespondCommand } from './domain/rfq-params';
import type { DeclineReason, RfqRecord } from './domain/rfq-record';
import { RfqTransitionsService } from './rfq-transitions.service';
import type { RfqCaller } from './rfq.service';
import { RfqRepository } from './rfq.repository';
import { type CheckedQuote, CompetitionHooks } from './competition-port';
import { KeyedQueue } from './keyed-queue';
import { type RespondResult, replayedCompetitive, replayedRespond } from './domain/respond-replay';
import { type BuiltPayload, type FoundRfq, QuoteChecksService } from './quote-checks.service';
import { QuoteTakeService } from './quote-take.service';

/**
 * Quoters' answers to a pending RFQ: rfq.maker.respond (one firm quote, first wins; a competitive
 * RFQ's quotes are the competition module's) and rfq.maker.decline. The checks are
 * QuoteChecksService's, the first-wins move under the limits QuoteTakeService's.
 */
@Injectable()
export class QuoteService {
  /** Responds of makers with limits on what is out, one at a time per maker on this instance, in arrival order. */
  private readonly inOrder = new KeyedQueue<number>();

  constructor(
    private readonly store: RfqRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly clock: Clock,
    private readonly limits: MakerLimitsService,
    private readonly competition: CompetitionHooks,
    private readonly checks: QuoteChecksService,
    private readonly taking: QuoteTakeService,
  ) {}

  /**
   * The checks in the order of docs/spec/design.md section 5, after schema and role: the RFQ exists, is not
   * the caller's, is pending; the quote's values and times; the signature over the 1,050-byte
   * payload rebuilt here; its legs still tradable; the maker's limits (section 15); then one
   * transaction moves pending → quoted and raises the maker's nonce high-water mark. Either
   * failing rolls both back: RFQ_STATE_CONFLICT, and the nonce is not consumed. A maker whose
   * limits bound what it has out is serialized on its limits row, in the move's transaction.
   */
  respond(maker: RfqCaller, command: RespondCommand): Promise<RespondResult> {
    if (this.limits.inOrder(maker.accountId)) return this.inOrder.run(maker.accountId, () => this.respondNow(maker, command));
    return this.respondNow(maker, command);
  }

  /**
   * A respond repeated with exactly the params of one that was taken answers the original result
   * (docs/spec/design.md section 19): nothing runs twice, no limit counts twice (a seed RFQ's
   * repeat is found on the RFQ before any check; a competitive one's, see respondCompetitive).
   */
  private async respondNow(maker: RfqCaller, command: RespondCommand): Promise<RespondResult> {
    const known = await this.respondKnown(maker, command);
    if (known.taken) return known.taken;
    const found = await this.checks.find(maker, command.rfqId);
    const replay = replayedRespond(found.rfq, maker.accountId, command, this.clock.now());
    if (replay) return replay;
    // A competitive RFQ takes several quotes (docs/spec/design.md 18): the competition module's.
    if (found.rfq?.competition) return this.respondCompetitive(maker, command, found, known.built);
    const checked = await this.checks.checked(maker, command, found);
    try {
      return await this.taking.take(maker, command, checked);
    } catch (error) {
      // A refusal at the move or the limits may be an exact repeat that raced its original (the
      // original committed in between): the RFQ read again decides.
      if (!(error instanceof RfqError)) throw error;
      const again = replayedRespond(await this.store.findById(command.rfqId), maker.accountId, command, this.clock.now());
      if (again) return again;
      throw error;
    }
  }

  /**
   * A competitive RFQ created on this instance needs no read before respond's transaction: its
   * checks run on it as locked there (CompetitionPort.respondKnown). `taken`: null when it did not
   * go through (nothing written: the usual path answers); `built`: the payload its checks built.
   */
  private async respondKnown(maker: RfqCaller, command: RespondCommand): Promise<{ taken: RespondResult | null; built: BuiltPayload | null }> {
    const port = this.competition.known(command.rfqId) ? this.competition.active : null;
    const known: { taken: RespondResult | null; built: BuiltPayload | null } = { taken: null, built: null };
    if (!port) return known;
    known.taken = await port.respondKnown(maker, command, (found) => {
      known.built = this.competitivePayload(maker, command, found.rfq);
      return this.checks.checked(maker, command, found, known.built);
    });
    return known;
  }

  /**
   * A competitive respond. An exact repeat of a quote taken is refused by the checks (a late one by
   * the time checks) or in the transaction (its nonce no longer rises), and no refusal writes
   * anything: so the quote is looked up only on a refusal, which the repeat's original result then
   * replaces (as if looked up before any check; a refusal in the transaction may be a repeat that
   * raced its original, which committed in between: the RFQ is read again for it).
   */
  private async respondCompetitive(maker: RfqCaller, command: RespondCommand, found: FoundRfq, known: BuiltPayload | null): Promise<RespondResult> {
    // The payload is built once: for the checks, then for a repeat's lookup (the RFQ's terms never change).
    const built = known ?? this.competitivePayload(maker, command, found.rfq);
    let checked: CheckedQuote | null = null;
    try {
      checked = await this.checks.checked(maker, command, found, built);
      return await this.competition.port.respond(maker, command, checked);
    } catch (error) {
      if (!(error instanceof RfqError)) throw error;
      const again = checked
        ? await this.competitiveReplay(maker, command, await this.store.findById(command.rfqId), checked)
        : await this.competitiveReplay(maker, command, found.rfq, built);
      if (again) return again;
      throw error;
    }
  }

  /**
   * Idempotent respond on a competitive RFQ (docs/spec/design.md 19): its quotes are the
   * competition module's, found by quote_id (the SHA-256 of the payload these params make, built
   * without any other check: a late repeat would fail the time checks); null when no quote of this
   * maker was taken from exactly these params, or the RFQ has left the live book.
   */
  private async competitiveReplay(maker: RfqCaller, command: RespondCommand, rfq: RfqRecord | null, built: BuiltPayload | null): Promise<RespondResult | null> {
    const port = this.competition.active;
    if (!port || !built || !rfq?.competition || rfq.id !== command.rfqId) return null;
    return replayedCompetitive(rfq, maker.accountId, command, await port.quote(built.quoteId), this.clock.now());
  }

  /**
   * The payload of these params on a competitive RFQ and its quote_id, built without any other
   * check (a late repeat would fail the time checks); null for a seed RFQ, and for params no
   * payload can hold (never taken: respond's checks refuse them).
   */
  private competitivePayload(maker: RfqCaller, command: RespondCommand, rfq: RfqRecord | null): BuiltPayload | null {
    if (!this.competition.active || !rfq?.competition || rfq.id !== command.rfqId) return null;
    try {
      const payload = this.checks.payloadOf(maker, command, rfq);
      return { payload, quoteId: quoteId(payload) };
    } catch {
      return null;
    }
  }

  async decline(maker: RfqCaller, command: DeclineCommand): Promise<{ rfq_id: string; state: 'declined'; decline_reason: DeclineReason }> {
    const rfq = this.checks.pending(maker, command.rfqId, await this.store.findById(command.rfqId));
    if (rfq.competition) return this.competition.port.decline(maker, command, rfq);
    const moved = await this.transitions.move({
      rfqId: rfq.id,
      from: 'pending',
      to: 'declined',
      changes: { declineReason: command.reason, declinedBy: maker.accountId },
      deadlineAfterMs: this.clock.nowMs(),
    });
    if (!moved) throw await this.checks.closed(maker, rfq.id);
    logger.event('info', 'rfq declined', { rfq_id: rfq.id, reason: command.reason, maker_account_id: maker.accountId }, 'Rfq');
    return { rfq_id: rfq.id, state: 'declined', decline_reason: command.reason };
  }
}
