import { Inject, Injectable } from '@nestjs/common';
import { Ed25519Verifier, type PayloadLeg, decodeCanonicalBase64Signature, encodeQuotePayload, parseWallet, quoteId, signingDomain } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { InstrumentsService } from '../instruments/instruments.service';
import { parseSymbol } from '../instruments/domain/symbol';
import { checkQuoteTerms } from './domain/quote-terms';
import { resolveLegs } from './domain/rfq-legs';
import type { DeclineCommand, RespondCommand } from './domain/rfq-params';
import type { DeclineReason, RfqRecord } from './domain/rfq-record';
import { RfqExpiry } from './rfq-expiry.service';
import { MoveRefused, RfqTransitions } from './rfq-transitions.service';
import type { RfqCaller } from './rfq.service';
import { RfqRepository } from './rfq.repository';

/**
 * The one conflict message of respond and decline: a maker must not learn the outcome (quoted,
 * declined, expired, filled...) of an RFQ it did not quote (docs/spec/design.md section 10).
 */
const NOT_PENDING = 'the RFQ is no longer open for quotes';

/**
 * The quote payload's legs from the RFQ's own terms (its symbols were checked at rfq.create), so
 * the signature is checked before the legs' tradability, as in rfq.accept.
 */
function rfqPayloadLegs(rfq: RfqRecord): PayloadLeg[] {
  return rfq.legs.map((leg) => {
    const terms = parseSymbol(leg.instrument);
    if (!terms) throw new RfqError('RFQ_INVALID_INSTRUMENT', `${leg.instrument} is not a listed instrument`, { rfqId: rfq.id });
    return { symbol: leg.instrument, strike: terms.strike, kind: terms.kind, quantity: leg.quantity };
  });
}

/** Quoters' answers to a pending RFQ: rfq.maker.respond (one firm quote, first wins) and rfq.maker.decline. */
@Injectable()
export class QuoteService {
  private readonly domain: Buffer;

  constructor(
    private readonly store: RfqRepository,
    private readonly transitions: RfqTransitions,
    private readonly instruments: InstrumentsService,
    private readonly verifier: Ed25519Verifier,
    private readonly expiry: RfqExpiry,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.domain = signingDomain(config.serviceName);
  }

  /**
   * The checks in the order of docs/spec/design.md section 5, after schema and role: the RFQ exists, is not
   * the caller's, is pending; the quote's values and times; the signature over the 1,050-byte
   * payload rebuilt here; its legs still tradable; then one transaction moves
   * pending → quoted and raises the maker's nonce high-water mark. Either failing rolls both
   * back: RFQ_STATE_CONFLICT, and the nonce is not consumed.
   */
  async respond(maker: RfqCaller, command: RespondCommand): Promise<{ rfq_id: string; quote_id: string; state: 'quoted' }> {
    const rfq = await this.pendingRfqFor(maker, command.rfqId);
    const now = this.clock.now();
    checkQuoteTerms(command, rfq.maxQuoteExpiresAt, now, rfq.id);

    const makerKey = parseWallet(maker.wallet);
    const payload = encodeQuotePayload({
      domain: this.domain,
      rfqId: rfq.id,
      maker: makerKey,
      quoteNonce: command.quoteNonce,
      bid: command.bid,
      ask: command.ask,
      issuedAt: command.issuedAt,
      expiresAt: command.expiresAt,
      asset: rfq.asset,
      expiry: rfq.expiry,
      legs: rfqPayloadLegs(rfq),
    });
    const signature = decodeCanonicalBase64Signature(command.makerSignature);
    if (!signature) throw new RfqError('RFQ_INVALID_SIGNATURE', 'maker_signature must be canonical base64 of 64 bytes', { rfqId: rfq.id });
    if (!this.verifier.verify(makerKey, payload, signature)) {
      throw new RfqError('RFQ_INVALID_SIGNATURE', "maker_signature does not verify over this RFQ's quote payload with the caller's wallet", { rfqId: rfq.id });
    }
    // Legs tradable right after the signature, as accept does (docs/spec/design.md section 5).
    resolveLegs(rfq.legs, (symbol) => this.instruments.get(symbol), now);
    const id = quoteId(payload);
    const conflict = (message: string) => new RfqError('RFQ_STATE_CONFLICT', message, { rfqId: rfq.id });

    // One statement: the first-wins move (only while the RFQ is within its deadline) and the nonce
    // high-water mark, refused together when the nonce does not rise.
    let moved: RfqRecord | null;
    try {
      moved = await this.transitions.moveToQuoted(
        { rfqId: rfq.id, from: 'pending', to: 'quoted', at: now, deadlineAfterMs: this.clock.nowMs() },
        {
          quoteId: id,
          makerAccountId: maker.accountId,
          makerWallet: maker.wallet,
          quoteNonce: command.quoteNonce,
          bid: command.bid,
          ask: command.ask,
          issuedAt: command.issuedAt,
          expiresAt: command.expiresAt,
          makerSignature: command.makerSignature,
        },
      );
    } catch (error) {
      if (error instanceof MoveRefused) throw conflict(`quote_nonce ${command.quoteNonce} is at or below this maker's high-water mark`);
      throw error;
    }
    if (!moved) throw conflict(NOT_PENDING);

    logger.event('info', 'rfq quoted', { rfq_id: rfq.id, quote_id: id, maker_account_id: maker.accountId }, 'Rfq');
    await this.expiry.schedule(command.expiresAt);
    return { rfq_id: rfq.id, quote_id: id, state: 'quoted' };
  }

  async decline(maker: RfqCaller, command: DeclineCommand): Promise<{ rfq_id: string; state: 'declined'; decline_reason: DeclineReason }> {
    const rfq = await this.pendingRfqFor(maker, command.rfqId);
    const conflict = (message: string) => new RfqError('RFQ_STATE_CONFLICT', message, { rfqId: rfq.id });
    const moved = await this.transitions.move({
      rfqId: rfq.id,
      from: 'pending',
      to: 'declined',
      changes: { declineReason: command.reason, declinedBy: maker.accountId },
      deadlineAfterMs: this.clock.nowMs(),
    });
    if (!moved) throw conflict(NOT_PENDING);
    logger.event('info', 'rfq declined', { rfq_id: rfq.id, reason: command.reason, maker_account_id: maker.accountId }, 'Rfq');
    return { rfq_id: rfq.id, state: 'declined', decline_reason: command.reason };
  }

  /** RFQ_NOT_FOUND, then RFQ_WRONG_ROLE for one's own RFQ, then RFQ_STATE_CONFLICT unless pending and not past expires_at. */
  private async pendingRfqFor(maker: RfqCaller, rfqId: string): Promise<RfqRecord> {
    const rfq = await this.store.findById(rfqId);
    if (!rfq) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId}`);
    if (rfq.accountId === maker.accountId) throw new RfqError('RFQ_WRONG_ROLE', 'a quoter cannot answer its own RFQ', { rfqId });
    if (rfq.state !== 'pending' || rfq.expiresAt * 1000 <= this.clock.nowMs()) throw new RfqError('RFQ_STATE_CONFLICT', NOT_PENDING, { rfqId });
    return rfq;
  }
}
