import { Injectable } from '@nestjs/common';
import { Notifier, type Notification } from '../../common/broadcast/notifier';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { MetricsService } from '../health/metrics.service';
import type { MakerLimitsRow } from '../maker-limits/maker-limits-row';
import { accountEventData, makerHears } from './domain/account-event';
import type { RfqRecord, StoredQuote } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';
import { closedRfqView, openRfqView } from './domain/rfq-view';
import { type CompanionWrite, CompetitionHooks, type QuotesEvent } from './competition-port';
import type { AcceptRow, RfqMove } from './rfq-move';
import { RfqRepository } from './rfq.repository';
import { RfqCompetitionRepository } from './rfq-competition.repository';

export { MoveRefused } from './rfq-move';

/** A move as callers ask it: `at` (unix seconds of the move) defaults to now. */
type RfqMoveRequest = Omit<RfqMove, 'at'> & { at?: number };

/** A committed move: the record as moved and the state it left. */
interface MovedRfq {
  moved: RfqRecord;
  from: RfqState;
  /** The step's latency for the metrics, when the caller knows it better than the record. */
  seconds?: number;
}

/**
 * The one place RFQ state moves (docs/spec/design.md section 5), for this module and the ledger: the
 * conditional statements of RfqRepository (an `UPDATE … WHERE id = $1 AND state = <from>` and its
 * `rfq_events` row in one statement, so two instances can never both move one RFQ), and after
 * commit the subscription events of the move: at once for a move that is its own statement, by
 * `Tx.afterCommit` for one made in a caller's transaction (no caller announces by hand).
 */
@Injectable()
export class RfqTransitionsService {
  constructor(
    private readonly db: Database,
    private readonly rfqs: RfqRepository,
    private readonly clock: Clock,
    private readonly notifier: Notifier,
    private readonly metrics: MetricsService,
    competitive?: RfqCompetitionRepository,
    private readonly competition?: CompetitionHooks,
  ) {
    this.competitive = competitive ?? new RfqCompetitionRepository(db);
  }

  private readonly competitive: RfqCompetitionRepository;

  /**
   * Moves the RFQ from `from` to `to` and announces it. null when the RFQ was not in `from`
   * (someone else moved it first, or it does not exist) or its deadline had come
   * (`deadlineAfterMs`): nothing changed. The move, with its event rows, is one statement, atomic
   * on its own (no BEGIN / COMMIT round trips). A caller that needs the move inside its own
   * transaction uses `moveWithin`.
   */
  async move(move: RfqMoveRequest): Promise<RfqRecord | null> {
    return this.announced(await this.rfqs.move(this.db, this.timed(move)), move.from);
  }

  /**
   * The move inside a transaction the caller holds (for a caller that writes its own rows in the
   * same transaction), announced once that transaction commits (`Tx.afterCommit`: never for a
   * move rolled back). The record is announced as it is then, so the caller may add to it (a
   * fill's receipt) before its commit, or after it in `ready` (awaited after the COMMIT, before the
   * announcement: a fill's receipt is chained then); `seconds`, read then too, is the step's latency.
   */
  async moveWithin(
    tx: Tx,
    move: RfqMoveRequest,
    seconds?: (moved: RfqRecord) => number,
    ready?: (moved: RfqRecord) => Promise<void>,
  ): Promise<RfqRecord | null> {
    return this.announcedAfterCommit(tx, await this.rfqs.move(tx, this.timed(move)), move.from, seconds, ready);
  }

  /**
   * pending → quoted with `quote`, raising the maker's nonce high-water mark in the same
   * statement, and announced. MoveRefused (nothing changed) when the nonce does not rise.
   */
  async moveToQuoted(move: RfqMoveRequest, quote: StoredQuote): Promise<RfqRecord | null> {
    return this.announced(await this.rfqs.moveToQuoted(this.db, this.timed(move), quote), move.from);
  }

  /**
   * moveToQuoted of a respond under a maker's limits decided on what this instance knows of its
   * quotes and limits row (RfqRepository.moveToQuotedIfUnchanged): null when nothing moved, the
   * RFQ or the maker's quotes or row having changed; the caller then decides in a transaction.
   */
  async moveToQuotedIfUnchanged(
    move: RfqMoveRequest,
    quote: StoredQuote,
    known: { highWater: bigint | null; limits: MakerLimitsRow },
  ): Promise<RfqRecord | null> {
    return this.announced(await this.rfqs.moveToQuotedIfUnchanged(this.db, this.timed(move), quote, known), move.from);
  }

  /**
   * pending → quoted inside a transaction the caller holds (respond under a maker's limits, with
   * its limits row locked), announced once that transaction commits.
   */
  async moveToQuotedWithin(tx: Tx, move: RfqMoveRequest, quote: StoredQuote): Promise<RfqRecord | null> {
    return this.announcedAfterCommit(tx, await this.rfqs.moveToQuoted(tx, this.timed(move), quote), move.from);
  }

  /** quoted → accepted with its accept row inside a transaction the caller holds (a competitive RFQ's accept), announced once it commits. */
  async moveToAcceptedWithin(tx: Tx, move: RfqMoveRequest, accept: AcceptRow): Promise<RfqRecord | null> {
    return this.announcedAfterCommit(tx, await this.rfqs.moveToAccepted(tx, this.timed(move), accept), move.from);
  }

  /** quoted → accepted with its accept row (the side and the frozen max_fee) in the same statement, and announced. */
  async moveToAccepted(move: RfqMoveRequest, accept: AcceptRow): Promise<RfqRecord | null> {
    return this.announced(await this.rfqs.moveToAccepted(this.db, this.timed(move), accept), move.from);
  }

  /**
   * Every pending or quoted RFQ whose deadline has come (the RFQ's `expires_at` while pending, the
   * quote's while quoted; at or before `now`, unix seconds) moves to expired, at most `limit` of
   * them in one statement (RfqRepository.expireDue, on `sql`: the pool or a held connection); then
   * their events in one broadcast. The moves made.
   */
  async expireDue(now: number, limit: number, sql: Sql): Promise<MovedRfq[]> {
    // Only a quoted RFQ holds a quote: that is the state it left.
    const moves = (await this.rfqs.expireDue(now, limit, sql)).map((moved): MovedRfq => ({ moved, from: moved.quote ? 'quoted' : 'pending' }));
    await this.announceAll(moves);
    return moves;
  }

  /**
   * The taker's cancel of its RFQ: pending or quoted → expired with `cancelled_at` (RfqRepository.cancel,
   * one conditional statement), announced as an expiry is: the taker hears `expired`, quoters
   * `closed` when it was pending, the maker holding the quote `expired` when it was quoted. null
   * when it was in neither state (or not the taker's): nothing changed.
   */
  async cancel(accountId: number, rfqId: string): Promise<RfqRecord | null> {
    const moved = await this.rfqs.cancel(accountId, rfqId, this.clock.now(), this.db, false);
    // Only a quoted RFQ holds a quote: that is the state it left.
    return this.announced(moved, moved?.quote ? 'quoted' : 'pending');
  }

  /**
   * The taker's cancel of a competitive RFQ (docs/spec/design.md 18) in the caller's transaction,
   * where its quotes end; announced (the taker's `expired`, `closed` to a panel that had not
   * quoted) once that transaction commits.
   */
  async cancelCompetitive(tx: Tx, accountId: number, rfqId: string, at: number, from: 'pending' | 'quoted'): Promise<RfqRecord | null> {
    return this.announcedAfterCommit(tx, await this.rfqs.cancel(accountId, rfqId, at, tx, true), from);
  }

  /**
   * The maker's quote-nonce high-water mark raised to a competitive quote's nonce, then the RFQ's
   * row locked and read with the maker's limits row, in one statement of the caller's transaction;
   * null: the nonce is not above the mark (or no such RFQ).
   */
  lockRaisingNonce(tx: Tx, rfqId: string, makerAccountId: number, nonce: bigint): Promise<{ rfq: RfqRecord; limits: MakerLimitsRow | null } | null> {
    return this.competitive.lockRaisingNonce(tx, rfqId, makerAccountId, nonce);
  }

  /** Competitive RFQs pending at or past their expires_at, for the competition module's sweep. */
  competitiveDue(now: number, limit: number): Promise<string[]> {
    return this.competitive.competitiveDue(now, limit);
  }

  /**
   * The taker's `quotes` event of a competitive RFQ stored in the caller's transaction (which holds
   * the row: see `lock`), with the competition module's write and the move between pending and
   * quoted, if any, in the same statement (RfqCompetitionRepository.storeQuotesEvent).
   */
  async storeQuotesEvent(tx: Tx, rfqId: string, at: number, event: QuotesEvent): Promise<RfqRecord> {
    const record = await this.competitive.storeQuotesEvent(tx, rfqId, at, event);
    const move = event.move;
    if (move) tx.afterCommit(() => this.metrics.rfqMoved(move.from, move.to));
    return record;
  }

  /**
   * The makers' `traded_away` / `expired` events stored in the caller's transaction, with the
   * competition module's write `also` in the same statement; their account_seqs in order.
   */
  storeQuoteEnds(
    tx: Tx,
    ends: ReadonlyArray<{ accountId: number; event: string; rfqId: string; quoteId: string }>,
    at: number,
    also?: CompanionWrite,
  ): Promise<number[]> {
    return this.competitive.storeQuoteEnds(tx, ends, at, also);
  }

  private timed(move: RfqMoveRequest): RfqMove {
    return { ...move, at: move.at ?? this.clock.now() };
  }

  private async announced(moved: RfqRecord | null, from: RfqState): Promise<RfqRecord | null> {
    if (moved) await this.announce(moved, from);
    return moved;
  }

  private announcedAfterCommit(
    tx: Tx,
    moved: RfqRecord | null,
    from: RfqState,
    seconds?: (moved: RfqRecord) => number,
    ready?: (moved: RfqRecord) => Promise<void>,
  ): RfqRecord | null {
    if (moved && ready)
      // Not awaited by the transaction: the caller (a fill job) is done at its COMMIT and frees its
      // slot, while the announcement waits for what `ready` adds (the receipt, chained by the journal's
      // appender). A crash before it is the same as any lost notification: replay carries the event.
      tx.afterCommit(() => {
        void ready(moved)
          .then(() => this.announce(moved, from, seconds?.(moved)))
          .catch((error: unknown) => logger.event('warn', 'announcement after commit failed', { rfq_id: moved.id, error: String(error) }, 'Rfq'));
      });
    else if (moved) tx.afterCommit(() => this.announce(moved, from, seconds?.(moved)));
    return moved;
  }

  /**
   * The events of a committed move (docs/spec/design.md section 5, Events): the taker hears every move on
   * `rfq`; quoters hear `closed` when it leaves pending (not the quoter that quoted or declined it);
   * the maker holding the quote hears accepted, filled, failed and expired on `rfq_maker`.
   * Never throws: a lost notification is logged (the state is in the database). Counts the move
   * in the metrics (`seconds`: the step's latency when the caller knows it better than the record).
   */
  async announce(moved: RfqRecord, from: RfqState, seconds?: number): Promise<void> {
    await this.publish(this.eventsOf({ moved, from, seconds }));
  }

  /** The events of several committed moves, in order, in one broadcast. */
  async announceAll(moves: readonly MovedRfq[]): Promise<void> {
    await this.publish(moves.flatMap((move) => this.eventsOf(move)));
  }

  private eventsOf({ moved, from, seconds }: MovedRfq): Notification[] {
    this.metrics.rfqMoved(from, moved.state, seconds ?? (moved.state === 'quoted' ? moved.updatedAt - moved.createdAt : undefined));
    // accepted or submitting → failed is a check at fill that failed (a revert moves from filled).
    if (moved.state === 'failed' && from !== 'filled' && moved.failure) this.metrics.ledgerFailure(moved.failure.error);
    const notifications: Notification[] = [{ channel: 'rfq', accountId: moved.accountId, data: accountEventData('rfq', moved, moved.accountSeqs?.rfq)! }];
    if (moved.competition && from === 'pending') {
      // A competitive RFQ's losing makers hear of their quotes from the competition module; a
      // move out of pending (nobody quoted yet) closes it for the panel; the winner hears section
      // 5's events of its quote as a seed quote's maker does, below (docs/spec/design.md 18).
      if (moved.state !== 'quoted') notifications.push(...this.toPanel(moved, { event: 'closed', rfq: closedRfqView(moved) }, moved.declinedBy));
    } else if (from === 'pending') {
      const except = moved.state === 'quoted' ? moved.quote?.makerAccountId : moved.state === 'declined' ? moved.declinedBy : moved.accountId;
      notifications.push({ channel: 'rfq_maker', exceptAccountId: except ?? undefined, data: { event: 'closed', rfq: closedRfqView(moved) } });
    } else if (makerHears(from, moved.state) && moved.quote) {
      const data = accountEventData('rfq_maker', moved, moved.accountSeqs?.rfq_maker);
      if (data) notifications.push({ channel: 'rfq_maker', accountId: moved.quote.makerAccountId, data });
    }
    return notifications;
  }

  /** A new RFQ (— → pending): every subscribed quoter but the taker hears `created` (a panel: its makers only); counted. */
  async created(rfq: RfqRecord): Promise<void> {
    this.metrics.rfqMoved(null, 'pending');
    this.competition?.opened(rfq);
    await this.publish(this.toPanel(rfq, { event: 'created', rfq: openRfqView(rfq) }));
  }

  /**
   * A notification on `rfq_maker` to the makers who may see the RFQ (docs/spec/design.md 18): a
   * panel's makers one by one (but `except`), else every subscribed quoter but the taker (and `except`).
   */
  toPanel(rfq: RfqRecord, data: Record<string, unknown>, except?: number | null): Notification[] {
    const accounts = rfq.competition?.accounts;
    if (!accounts) return [{ channel: 'rfq_maker', exceptAccountId: except ?? rfq.accountId, data }];
    return accounts.filter((id) => id !== except).map((accountId) => ({ channel: 'rfq_maker' as const, accountId, data }));
  }

  /** Locks the RFQ's row to the caller's commit and reads it (null: no such RFQ): every change of a competitive RFQ's quotes queues here. */
  lock(tx: Tx, rfqId: string): Promise<RfqRecord | null> {
    return this.competitive.lockRecord(tx, rfqId);
  }

  /** The notifications in one broadcast; a failure is logged (the state is in the database), never thrown. */
  async publish(notifications: Notification[]): Promise<void> {
    try {
      await this.notifier.notifyAll(notifications);
    } catch (error) {
      logger.event('warn', 'rfq notifications lost', { channels: notifications.map((n) => n.channel), error: String(error) }, 'Rfq');
    }
  }
}
