import { Inject, Injectable } from '@nestjs/common';
import { transcriptHash, transcriptPayload } from '@legwork/protocol';
import type { Notification } from '../../common/broadcast/notifier';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import type { Tx } from '../../common/database/sql';
import { ExchangeKeyService } from '../journal/exchange-key.service';
import type { CompanionValue, CompanionWrite, QuotesEvent } from '../rfq/competition-port';
import { accountEventData, quoteEndEventData } from '../rfq/domain/account-event';
import type { DeclineReason, RfqRecord } from '../rfq/domain/rfq-record';
import { closedRfqView } from '../rfq/domain/rfq-view';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import { CompetitionRepository, type StoredCompetitiveQuote, type StoredTranscript } from './competition.repository';
import { type TranscriptAccept, buildTranscript, storedLive } from './domain/competition';

/** How a competition ended without an accept. */
export type Ending = { to: 'expired' } | { to: 'declined'; reason: DeclineReason; by: number };

/**
 * What follows a change of a competitive RFQ's quotes, in the change's transaction (which holds
 * the RFQ's row): the moves between pending and quoted, the taker's `quotes` event, the makers'
 * events of quotes that ended without a fill, and, when the competition ends, the signed
 * transcript (docs/spec/design.md 18). Events are stored here and sent once the transaction commits.
 */
@Injectable()
export class CompetitionCloseService {
  constructor(
    private readonly quotes: CompetitionRepository,
    private readonly transitions: RfqTransitionsService,
    private readonly keys: ExchangeKeyService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * After the quotes of the locked RFQ `rfq` (its state as locked) changed: pending → quoted at
   * the first live quote; quoted → pending when none is left before its expires_at, else the
   * competition ends expired; then the taker hears `quotes` (unless it ended: it hears the end).
   */
  async changed(tx: Tx, rfq: RfqRecord, nowMs: number): Promise<void> {
    const live = await this.quotes.liveOf([rfq.id], tx);
    let move: QuotesEvent['move'];
    if (live.length > 0 && rfq.state === 'pending') move = { from: 'pending', to: 'quoted' };
    if (live.length === 0 && rfq.state === 'quoted') {
      if (rfq.expiresAt * 1000 <= nowMs) {
        await this.end(tx, rfq, nowMs, { to: 'expired' }, new Set());
        return;
      }
      move = { from: 'quoted', to: 'pending' };
    }
    await this.storeQuotes(tx, rfq, nowMs, { live: live.map(storedLive), move });
  }

  /**
   * A respond's quote joins the locked RFQ's live quotes (`join`: the write and the read of
   * CompetitionRepository.joinWith), in the statement that stores the taker's `quotes` event; a
   * pending RFQ moves to quoted in it too (the respond's quote is live).
   */
  async joined(tx: Tx, rfq: RfqRecord, nowMs: number, join: { write: CompanionWrite; live: CompanionValue }): Promise<void> {
    const move = rfq.state === 'pending' ? ({ from: 'pending', to: 'quoted' } as const) : undefined;
    await this.storeQuotes(tx, rfq, nowMs, { live: join.live, also: join.write, move });
  }

  /** The taker's `quotes` event stored with the change (`event`), and sent once the transaction commits. */
  private async storeQuotes(tx: Tx, rfq: RfqRecord, nowMs: number, event: QuotesEvent): Promise<void> {
    const record = await this.transitions.storeQuotesEvent(tx, rfq.id, Math.floor(nowMs / 1000), event);
    const data = accountEventData('rfq', record, record.accountSeqs?.rfq, 'quotes')!;
    tx.afterCommit(() => this.transitions.publish([{ channel: 'rfq', accountId: rfq.accountId, data }]));
  }

  /**
   * The makers' events of quotes that ended here without a fill (`traded_away`, `expired`:
   * `{ rfq_id, quote_id }` only), stored with their account_seqs and sent after commit. `also`:
   * the write that ends them, run in the statement that stores the events (even with none to store).
   */
  async tellEnded(tx: Tx, ended: readonly StoredCompetitiveQuote[], event: 'traded_away' | 'expired', nowMs: number, also?: CompanionWrite): Promise<void> {
    const ends = ended.map((q) => ({ accountId: q.makerAccountId, event, rfqId: q.rfqId, quoteId: q.quoteId }));
    const seqs = await this.transitions.storeQuoteEnds(tx, ends, Math.floor(nowMs / 1000), also);
    if (ends.length === 0) return;
    const notifications: Notification[] = ends.map((e, i) => ({
      channel: 'rfq_maker',
      accountId: e.accountId,
      data: quoteEndEventData(event, e.rfqId, e.quoteId, seqs[i]),
    }));
    tx.afterCommit(() => this.transitions.publish(notifications));
  }

  /**
   * The competition ends without an accept: the RFQ (pending or quoted, no live quote left) moves
   * to `expired` or `declined` (its events as any move's), panel makers without a quote hear
   * `closed` (`told`: the makers already told of their quote's end), and the transcript is written.
   */
  async end(tx: Tx, rfq: RfqRecord, nowMs: number, ending: Ending, told: ReadonlySet<number>): Promise<RfqRecord | null> {
    const from = rfq.state as 'pending' | 'quoted';
    const changes = ending.to === 'declined' ? { declineReason: ending.reason, declinedBy: ending.by } : undefined;
    const moved = await this.transitions.moveWithin(tx, { rfqId: rfq.id, from, to: ending.to, changes, at: Math.floor(nowMs / 1000) });
    if (!moved) return null;
    // From pending the move's own events closed it for the panel; from quoted, the makers are told here.
    if (from === 'quoted') this.closeFor(tx, moved, new Set([...told, ...(ending.to === 'declined' ? [ending.by] : [])]));
    await this.writeTranscript(tx, moved, nowMs, null);
    return moved;
  }

  /** `closed` to the panel makers not in `told` (an RFQ without a panel: every quoter but the taker). */
  closeFor(tx: Tx, rfq: RfqRecord, told: ReadonlySet<number>): void {
    const notifications = this.transitions
      .toPanel(rfq, { event: 'closed', rfq: closedRfqView(rfq) })
      .filter((n) => n.accountId === undefined || !told.has(n.accountId));
    tx.afterCommit(() => this.transitions.publish(notifications));
  }

  /** The signed transcript of the ended competition, in the transaction that ended it. */
  async writeTranscript(tx: Tx, rfq: RfqRecord, closedAtMs: number, accept: TranscriptAccept | null): Promise<void> {
    const all = await this.quotes.allOf(rfq.id, tx);
    await this.quotes.saveTranscript(tx, rfq.id, this.transcriptOf(rfq, closedAtMs, accept, all), closedAtMs);
  }

  /** The signed transcript of the ended competition from every quote of the RFQ, each with its end (to store). */
  transcriptOf(rfq: RfqRecord, closedAtMs: number, accept: TranscriptAccept | null, all: readonly StoredCompetitiveQuote[]): StoredTranscript {
    const payload = Buffer.from(transcriptPayload(buildTranscript(this.config.serviceName, rfq, all, closedAtMs, accept)));
    return { payload, hash: transcriptHash(payload), keyId: this.keys.keyId, signature: this.keys.sign(payload).toString('base64') };
  }
}
