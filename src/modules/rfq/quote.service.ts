import { Inject, Injectable } from '@nestjs/common';
import { Ed25519Verifier, type PayloadLeg, decodeCanonicalBase64Signature, encodeQuotePayload, parseWallet, quoteId, signingDomain } from '@legwork/protocol';
import { asBuffer } from '../../common/bytes';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError, type RfqErrorReason } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { InstrumentsService } from '../instruments/instruments.service';
import { parseSymbol } from '../instruments/domain/symbol';
import { checkQuoteTerms } from './domain/quote-terms';
import { resolveLegs } from './domain/rfq-legs';
import type { DeclineCommand, RespondCommand } from './domain/rfq-params';
import type { DeclineReason, RfqRecord } from './domain/rfq-record';
import { RfqExpiryService } from './rfq-expiry.service';
import { MoveRefused, RfqTransitionsService } from './rfq-transitions.service';
import type { RfqCaller } from './rfq.service';
import { RfqRepository } from './rfq.repository';
import { type CheckedQuote, CompetitionHooks, onPanel } from './competition-port';
import { MakerLimitsService, type SeenQuotes } from './maker-limits.service';
import { KeyedQueue } from './keyed-queue';
import { type RespondResult, closedReason, replayedCompetitive, replayedRespond } from './domain/respond-replay';
import { Database } from '../../common/database/database';

/**
 * The one conflict message of respond and decline: a maker must not learn the outcome (quoted,
 * declined, expired, filled...) of an RFQ it did not quote (docs/spec/design.md section 10).
 */
const NOT_PENDING = 'the RFQ is no longer open for quotes';

const nonceConflict = (nonce: bigint) => `quote_nonce ${nonce} is at or below this maker's high-water mark`;
const nonceRefusal = (nonce: bigint, rfqId: string) => new RfqError('RFQ_STATE_CONFLICT', nonceConflict(nonce), { rfqId, reason: 'nonce_not_increasing' });

type FoundRfq = Awaited<ReturnType<MakerLimitsService['findWithRfq']>>;

/**
 * The quote payload's legs from the RFQ's own terms (its symbols were checked at rfq.create), so
 * the signature is checked before the legs' tradability, as in rfq.accept.
 */
function rfqPayloadLegs(rfq: RfqRecord): PayloadLeg[] {
  return rfq.legs.map((leg) => {
    const terms = parseSymbol(leg.instrument);
    if (!terms) throw new RfqError('RFQ_INVALID_INSTRUMENT', `${leg.instrument} is not a listed instrument`, { rfqId: rfq.id, reason: 'instrument_unknown' });
    return { symbol: leg.instrument, strike: terms.strike, kind: terms.kind, quantity: leg.quantity };
  });
}

/** Quoters' answers to a pending RFQ: rfq.maker.respond (one firm quote, first wins) and rfq.maker.decline. */
@Injectable()
export class QuoteService {
  private readonly domain: Uint8Array;
  /** Responds of makers with limits on what is out, one at a time per maker on this instance, in arrival order. */
  private readonly inOrder = new KeyedQueue<number>();

  constructor(
    private readonly store: RfqRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly instruments: InstrumentsService,
    private readonly verifier: Ed25519Verifier,
    private readonly expiry: RfqExpiryService,
    private readonly clock: Clock,
    private readonly limits: MakerLimitsService,
    private readonly db: Database,
    private readonly competition: CompetitionHooks,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.domain = signingDomain(config.serviceName);
  }

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
   * (docs/spec/design.md section 19), before any check: nothing runs twice, no limit counts twice.
   */
  private async respondNow(maker: RfqCaller, command: RespondCommand): Promise<RespondResult> {
    const found = await this.limits.findWithRfq(maker.accountId, command.rfqId);
    const replay = replayedRespond(found.rfq, maker.accountId, command, this.clock.now()) ?? (await this.competitiveReplay(maker, command, found.rfq));
    if (replay) return replay;
    const checked = await this.checked(maker, command, found);
    // A competitive RFQ takes several quotes (docs/spec/design.md 18): the competition module's.
    if (checked.rfq.competition) return this.respondCompetitive(maker, command, checked);
    try {
      return await this.take(maker, command, checked);
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
   * A competitive respond; a refusal (the nonce, the limits, the RFQ's row) may be an exact repeat
   * that raced its original, which committed in between: the quote, looked up again, decides.
   */
  private async respondCompetitive(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    try {
      return await this.competition.port.respond(maker, command, checked);
    } catch (error) {
      if (!(error instanceof RfqError)) throw error;
      const again = await this.competitiveReplay(maker, command, await this.store.findById(command.rfqId));
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
  private async competitiveReplay(maker: RfqCaller, command: RespondCommand, rfq: RfqRecord | null): Promise<RespondResult | null> {
    const port = this.competition.active;
    if (!port || !rfq?.competition || rfq.id !== command.rfqId) return null;
    let id: string;
    try {
      id = quoteId(this.payloadOf(maker, command, rfq));
    } catch {
      return null; // params no payload can hold: never taken, respond's checks refuse them
    }
    return replayedCompetitive(rfq, maker.accountId, command, await port.quote(id), this.clock.now());
  }

  /** The 1,050-byte quote payload of these params on this RFQ, as the maker signs it. */
  private payloadOf(maker: RfqCaller, command: RespondCommand, rfq: RfqRecord): Buffer {
    // A Buffer view of the bytes (no copy): what the quote row and the refusal carry.
    return asBuffer(
      encodeQuotePayload({
        domain: this.domain,
        rfqId: rfq.id,
        maker: parseWallet(maker.wallet),
        quoteNonce: command.quoteNonce,
        bid: command.bid,
        ask: command.ask,
        issuedAt: command.issuedAt,
        expiresAt: command.expiresAt,
        asset: rfq.asset,
        expiry: rfq.expiry,
        legs: rfqPayloadLegs(rfq),
      }),
    );
  }

  /** The limits and, in one transaction with them where they bound what is out, the first-wins move with the nonce. */
  private async take(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    const { rfq, quoteId: id, now } = checked;
    const move = { rfqId: rfq.id, from: 'pending' as const, to: 'quoted' as const, at: now, deadlineAfterMs: this.clock.nowMs() };
    const quote = {
      quoteId: id,
      makerAccountId: maker.accountId,
      makerWallet: maker.wallet,
      quoteNonce: command.quoteNonce,
      bid: command.bid,
      ask: command.ask,
      issuedAt: command.issuedAt,
      expiresAt: command.expiresAt,
      makerSignature: command.makerSignature,
      receivedAtMs: move.deadlineAfterMs,
    };

    // One statement: the first-wins move (only while the RFQ is within its deadline) and the nonce
    // high-water mark, refused together when the nonce does not rise.
    let moved: RfqRecord | null;
    let seen: SeenQuotes = null;
    try {
      if (checked.limits && this.limits.serialized(checked.limits)) {
        // Announced once the transaction commits (RfqTransitionsService.moveToQuotedWithin).
        moved = await this.db.tx(async (tx) => {
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
    if (!moved) throw await this.closed(maker, rfq.id);
    if (checked.limits) this.limits.quoted(rfq, seen, command.quoteNonce, command.expiresAt);

    logger.event('info', 'rfq quoted', { rfq_id: rfq.id, quote_id: id, maker_account_id: maker.accountId }, 'Rfq');
    await this.expiry.schedule(command.expiresAt);
    return { rfq_id: rfq.id, quote_id: id, state: 'quoted' };
  }

  /**
   * rfq.maker.check (docs/spec/design.md section 15): every check respond runs, in its order and
   * through the same code, against the current state, the limits and the nonce high-water mark
   * included; nothing is stored, moved or consumed.
   */
  async check(maker: RfqCaller, command: RespondCommand): Promise<{ ok: true; quote_id: string; payload: string }> {
    const { rfq, quoteId: id, payload, limits } = await this.checked(maker, command);
    // On a competitive RFQ a respond replaces the maker's live quote there: its limits count it net.
    const replacing = rfq.competition ? rfq.id : undefined;
    await this.limits.checkQuote(this.db, maker.accountId, limits, rfq, command, this.clock.nowMs(), replacing);
    const highWater = await this.store.nonceHighWater(maker.accountId);
    if (highWater !== null && command.quoteNonce <= highWater) throw nonceRefusal(command.quoteNonce, rfq.id);
    return { ok: true, quote_id: id, payload: payload.toString('base64') };
  }

  /**
   * Respond's checks up to the limits: the RFQ, the quote's terms, the signature over the payload
   * rebuilt here (a refusal carries the payload and its quote_id, so a maker can diff its bytes),
   * the legs; and the maker's limits row (read with the RFQ, not locked).
   */
  private async checked(maker: RfqCaller, command: RespondCommand, read?: FoundRfq): Promise<CheckedQuote> {
    // The RFQ and the maker's limits row in one read (the limits are used after the signature).
    const found = read ?? (await this.limits.findWithRfq(maker.accountId, command.rfqId));
    const rfq = this.pending(maker, command.rfqId, found.rfq);
    const now = this.clock.now();
    checkQuoteTerms(command, rfq.maxQuoteExpiresAt, now, rfq.id);

    const makerKey = parseWallet(maker.wallet);
    const payload = this.payloadOf(maker, command, rfq);
    const id = quoteId(payload);
    const refused = (message: string, reason: RfqErrorReason<'RFQ_INVALID_SIGNATURE'>) =>
      new RfqError('RFQ_INVALID_SIGNATURE', message, { rfqId: rfq.id, quoteId: id, payload: payload.toString('base64'), reason });
    const signature = decodeCanonicalBase64Signature(command.makerSignature);
    if (!signature) throw refused('maker_signature must be canonical base64 of 64 bytes', 'signature_not_canonical');
    if (!this.verifier.verify(makerKey, payload, signature)) {
      throw refused("maker_signature does not verify over this RFQ's quote payload with the caller's wallet", 'signature_mismatch');
    }
    // Legs tradable right after the signature, as accept does (docs/spec/design.md section 5).
    resolveLegs(rfq.legs, (symbol) => this.instruments.get(symbol), now);
    return { rfq, now, payload, quoteId: id, limits: found.limits };
  }

  async decline(maker: RfqCaller, command: DeclineCommand): Promise<{ rfq_id: string; state: 'declined'; decline_reason: DeclineReason }> {
    const rfq = this.pending(maker, command.rfqId, await this.store.findById(command.rfqId));
    if (rfq.competition) return this.competition.port.decline(maker, command, rfq);
    const moved = await this.transitions.move({
      rfqId: rfq.id,
      from: 'pending',
      to: 'declined',
      changes: { declineReason: command.reason, declinedBy: maker.accountId },
      deadlineAfterMs: this.clock.nowMs(),
    });
    if (!moved) throw await this.closed(maker, rfq.id);
    logger.event('info', 'rfq declined', { rfq_id: rfq.id, reason: command.reason, maker_account_id: maker.accountId }, 'Rfq');
    return { rfq_id: rfq.id, state: 'declined', decline_reason: command.reason };
  }

  /**
   * RFQ_NOT_FOUND (also for a competitive RFQ whose panel the maker is not on: it does not exist for
   * it, docs/spec/design.md 18), then RFQ_WRONG_ROLE for one's own RFQ, then RFQ_STATE_CONFLICT
   * unless open to quotes (pending, or quoted for a competitive RFQ) and not past expires_at.
   */
  private pending(maker: RfqCaller, rfqId: string, rfq: RfqRecord | null): RfqRecord {
    if (!rfq || !onPanel(rfq, maker.accountId)) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId}`);
    if (rfq.accountId === maker.accountId) throw new RfqError('RFQ_WRONG_ROLE', 'a quoter cannot answer its own RFQ', { rfqId, reason: 'own_rfq' });
    const open = rfq.state === 'pending' || (rfq.competition !== null && rfq.state === 'quoted');
    if (!open || rfq.expiresAt * 1000 <= this.clock.nowMs()) throw closedRefusal(rfq, maker);
    return rfq;
  }

  /** The conflict of a move that found the RFQ no longer pending: its reason read from the RFQ as it is now. */
  private async closed(maker: RfqCaller, rfqId: string): Promise<RfqError> {
    const now = await this.store.findById(rfqId);
    return now ? closedRefusal(now, maker) : new RfqError('RFQ_STATE_CONFLICT', NOT_PENDING, { rfqId, reason: 'rfq_ended' });
  }
}

/** RFQ_STATE_CONFLICT for an RFQ closed to quotes, with why (domain/respond-replay.ts; one message whatever the outcome). */
function closedRefusal(rfq: RfqRecord, maker: RfqCaller): RfqError {
  return new RfqError('RFQ_STATE_CONFLICT', NOT_PENDING, { rfqId: rfq.id, reason: closedReason(rfq, maker.accountId) });
}
