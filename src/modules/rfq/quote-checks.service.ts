import { Inject, Injectable } from '@nestjs/common';
import { Ed25519Verifier, type PayloadLeg, decodeCanonicalBase64Signature, encodeQuotePayload, parseWallet, quoteId, signingDomain } from '@legwork/protocol';
import { asBuffer } from '../../common/bytes';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import { RfqError, type RfqErrorReason } from '../../common/errors/app-error';
import type { RfqCaller } from '../../common/rpc/rfq-caller';
import { InstrumentsService } from '../instruments/instruments.service';
import { parseSymbol } from '../instruments/domain/symbol';
import { MakerLimitsService } from '../maker-limits/maker-limits.service';
import type { MakerLimitsRow } from '../maker-limits/maker-limits-row';
import { type CheckedQuote, onPanel } from './competition-port';
import { checkQuoteTerms } from './domain/quote-terms';
import { closedReason } from './domain/respond-replay';
import { resolveLegs } from './domain/rfq-legs';
import type { RespondCommand } from './domain/rfq-params';
import type { RfqRecord } from './domain/rfq-record';
import { RfqRepository } from './rfq.repository';

/**
 * The one conflict message of respond and decline: a maker must not learn the outcome (quoted,
 * declined, expired, filled...) of an RFQ it did not quote (docs/spec/design.md section 10).
 */
const NOT_PENDING = 'the RFQ is no longer open for quotes';

const nonceConflict = (nonce: bigint) => `quote_nonce ${nonce} is at or below this maker's high-water mark`;
export const nonceRefusal = (nonce: bigint, rfqId: string) =>
  new RfqError('RFQ_STATE_CONFLICT', nonceConflict(nonce), { rfqId, reason: 'nonce_not_increasing' });

/** An RFQ (null: none) and the limits row of the maker answering it (null: never had limits). */
export type FoundRfq = { rfq: RfqRecord | null; limits: MakerLimitsRow | null };
/** A quote payload built from respond's params, and its quote_id (the SHA-256 of the payload). */
export type BuiltPayload = Pick<CheckedQuote, 'payload' | 'quoteId'>;

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

/**
 * Respond's checks (docs/spec/design.md section 5), shared by rfq.maker.respond and
 * rfq.maker.check: the RFQ open to this maker, the quote's terms, the signature over the payload
 * rebuilt here, the legs still tradable; and rfq.maker.check itself.
 */
@Injectable()
export class QuoteChecksService {
  private readonly domain: Uint8Array;

  constructor(
    private readonly store: RfqRepository,
    private readonly instruments: InstrumentsService,
    private readonly verifier: Ed25519Verifier,
    private readonly clock: Clock,
    private readonly limits: MakerLimitsService,
    private readonly db: Database,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.domain = signingDomain(config.serviceName);
  }

  /** The RFQ and the maker's limits row in one read, without a lock; the limits remember the row (their respond order). */
  async find(maker: RfqCaller, rfqId: string): Promise<FoundRfq> {
    const found = await this.store.findWithLimits(rfqId, maker.accountId);
    if (found) this.limits.remember(maker.accountId, found.limits);
    return found ?? { rfq: null, limits: null };
  }

  /** The 1,050-byte quote payload of these params on this RFQ, as the maker signs it. */
  payloadOf(maker: RfqCaller, command: RespondCommand, rfq: RfqRecord): Buffer {
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
  async checked(maker: RfqCaller, command: RespondCommand, read?: FoundRfq, built?: BuiltPayload | null): Promise<CheckedQuote> {
    // The RFQ and the maker's limits row in one read (the limits are used after the signature).
    const found = read ?? (await this.find(maker, command.rfqId));
    const rfq = this.pending(maker, command.rfqId, found.rfq);
    const now = this.clock.now();
    checkQuoteTerms(command, rfq.maxQuoteExpiresAt, now, rfq.id);

    const makerKey = parseWallet(maker.wallet);
    const payload = built?.payload ?? this.payloadOf(maker, command, rfq);
    const id = built?.quoteId ?? quoteId(payload);
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

  /**
   * RFQ_NOT_FOUND (also for a competitive RFQ whose panel the maker is not on: it does not exist for
   * it, docs/spec/design.md 18), then RFQ_WRONG_ROLE for one's own RFQ, then RFQ_STATE_CONFLICT
   * unless open to quotes (pending, or quoted for a competitive RFQ) and not past expires_at.
   */
  pending(maker: RfqCaller, rfqId: string, rfq: RfqRecord | null): RfqRecord {
    if (!rfq || !onPanel(rfq, maker.accountId)) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId}`);
    if (rfq.accountId === maker.accountId) throw new RfqError('RFQ_WRONG_ROLE', 'a quoter cannot answer its own RFQ', { rfqId, reason: 'own_rfq' });
    const open = rfq.state === 'pending' || (rfq.competition !== null && rfq.state === 'quoted');
    if (!open || rfq.expiresAt * 1000 <= this.clock.nowMs()) throw closedRefusal(rfq, maker);
    return rfq;
  }

  /** The conflict of a move that found the RFQ no longer pending: its reason read from the RFQ as it is now. */
  async closed(maker: RfqCaller, rfqId: string): Promise<RfqError> {
    const now = await this.store.findById(rfqId);
    return now ? closedRefusal(now, maker) : new RfqError('RFQ_STATE_CONFLICT', NOT_PENDING, { rfqId, reason: 'rfq_ended' });
  }
}

/** RFQ_STATE_CONFLICT for an RFQ closed to quotes, with why (domain/respond-replay.ts; one message whatever the outcome). */
function closedRefusal(rfq: RfqRecord, maker: RfqCaller): RfqError {
  return new RfqError('RFQ_STATE_CONFLICT', NOT_PENDING, { rfqId: rfq.id, reason: closedReason(rfq, maker.accountId) });
}
