import { Injectable } from '@nestjs/common';
import { Notifier, type Notification } from '../../common/broadcast/notifier';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { type SqlExecutor, refusalReason, sqlRows } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { MetricsService } from '../health/metrics.service';
import type { DeclineReason, RfqFailure, RfqRecord, Side, StoredQuote } from './domain/rfq-record';
import { type RfqState, canMove, freesSlot, isEnded } from './domain/rfq-state';
import { closedRfqView, openRfqView } from './domain/rfq-view';
import { ACCOUNT_SEQS_COLUMN, accountEventCtes, accountEventData, makerHears, withAccountSeqs } from './account-events';
import { RFQ_COLUMNS, type RfqRow, toRfqRecord } from './rfq.store';

/** Column values a move may set besides state, updated_at and ended_at. */
export interface RfqChanges {
  /** pending → quoted. */
  quote?: StoredQuote;
  /** pending → declined. */
  declineReason?: DeclineReason;
  declinedBy?: number;
  /** quoted → accepted. */
  acceptedSide?: Side;
  /** → failed. */
  failure?: RfqFailure;
  /** submitting → filled. */
  fill?: { fillId: string; price: bigint; fee: bigint; filledAt: number };
  /** filled → failed by an admin revert. */
  fillReverted?: boolean;
}

/** A move refused by its own statement (`unlessAlongside`): nothing changed. */
export class MoveRefused extends Error {
  constructor(readonly reason: string) {
    super(`move refused: ${reason}`);
  }
}

function refusal(error: unknown): MoveRefused | null {
  const reason = refusalReason(error);
  return reason === null ? null : new MoveRefused(reason);
}

/** A committed move: the record as moved and the state it left. */
export interface MovedRfq {
  moved: RfqRecord;
  from: RfqState;
  /** The step's latency for the metrics, when the caller knows it better than the record. */
  seconds?: number;
}

export interface RfqMove {
  rfqId: string;
  from: RfqState;
  to: RfqState;
  changes?: RfqChanges;
  /** Unix seconds of the move (updated_at, ended_at, the event row); default: now. */
  at?: number;
  /**
   * The move happens only while the RFQ's current deadline (its `expires_at` while pending, the
   * quote's while quoted) is after this instant (unix ms): a move racing its own expiry loses.
   */
  deadlineAfterMs?: number;
  /**
   * A data-modifying statement that runs in the move's own statement, only when the RFQ moves:
   * it reads the moved row as `moved` and takes its values through `param` (which answers the
   * placeholder). For rows written with the move (an accept) without a transaction of its own.
   */
  alongside?: (param: (value: unknown) => string) => string;
  /**
   * With `alongside` (a statement with RETURNING): the move stands only if it wrote a row;
   * otherwise the whole statement is refused and rolled back, and `move` throws MoveRefused with
   * this reason. A required companion write without a transaction.
   */
  unlessAlongside?: string;
}

/**
 * The one place RFQ state moves (design.md section 5): a conditional `UPDATE … WHERE id = $1 AND
 * state = <from>` and its `rfq_events` row in one transaction, so two instances can never both
 * move one RFQ; after commit, the subscription events of the move.
 */
@Injectable()
export class RfqTransitions {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly notifier: Notifier,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Moves the RFQ from `from` to `to` and announces it. null when the RFQ was not in `from`
   * (someone else moved it first, or it does not exist) or its deadline had come
   * (`deadlineAfterMs`): nothing changed. The move, with its event row and any `alongside` write,
   * is one statement, atomic on its own (no BEGIN / COMMIT round trips). A caller that needs the
   * move inside its own transaction uses `moveWithin`.
   */
  async move(move: RfqMove): Promise<RfqRecord | null> {
    let moved: RfqRecord | null;
    try {
      moved = await this.moveWithin(this.db.dataSource, move);
    } catch (error) {
      throw refusal(error) ?? error;
    }
    if (moved) await this.announce(moved, move.from);
    return moved;
  }

  /**
   * The move inside a transaction the caller holds (for a caller that writes its own rows in the
   * same transaction), or alone as one statement. The caller must call `announce(moved, from)`
   * after its commit.
   */
  async moveWithin(m: SqlExecutor, move: RfqMove): Promise<RfqRecord | null> {
    if (!canMove(move.from, move.to)) throw new Error(`an RFQ cannot move from ${move.from} to ${move.to}`);
    const at = move.at ?? this.clock.now();
    const params: unknown[] = [move.rfqId, move.from, move.to, at];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const sets = ['state = $3', 'updated_at = $4'];
    const set = (column: string, value: unknown) => sets.push(`${column} = ${param(value)}`);
    if (isEnded(move.to)) sets.push('ended_at = $4');
    const c = move.changes ?? {};
    if (c.quote) {
      const q = c.quote;
      set('quote_id', q.quoteId);
      set('maker_account_id', q.makerAccountId);
      set('maker_wallet', q.makerWallet);
      set('quote_nonce', q.quoteNonce.toString());
      set('bid', q.bid.toString());
      set('ask', q.ask.toString());
      set('issued_at', q.issuedAt);
      set('quote_expires_at', q.expiresAt);
      set('maker_signature', q.makerSignature);
    }
    if (c.declineReason) set('decline_reason', c.declineReason);
    if (c.declinedBy !== undefined) set('declined_by', c.declinedBy);
    if (c.acceptedSide) set('accepted_side', c.acceptedSide);
    if (c.failure) {
      set('failure_error', c.failure.error);
      set('failure_message', c.failure.message);
    }
    if (c.fill) {
      set('fill_id', c.fill.fillId);
      set('fill_price', c.fill.price.toString());
      set('fill_fee', c.fill.fee.toString());
      set('filled_at', c.fill.filledAt);
    }
    if (c.fillReverted !== undefined) set('fill_reverted', c.fillReverted);
    const conditions = ['id = $1', 'state = $2'];
    if (move.deadlineAfterMs !== undefined) conditions.push(`expiry_deadline * 1000 > ${param(move.deadlineAfterMs)}::bigint`);
    const alongside = move.alongside ? `, alongside AS (${move.alongside(param)})` : '';
    // Leaving the open states gives the taker's MAX_OPEN_RFQS slot back (accounts.open_rfqs).
    const slot = freesSlot(move.from, move.to) ? `, freed AS (UPDATE accounts SET open_rfqs = open_rfqs - 1 WHERE id = (SELECT account_id FROM moved))` : '';
    const refuse = move.alongside && move.unlessAlongside ? `, CASE WHEN NOT EXISTS (SELECT 1 FROM alongside) THEN legwork_refuse(${param(move.unlessAlongside)}) END AS refused` : '';
    // The conditional move and its event row in one statement (one round trip): the INSERT reads
    // the UPDATE's RETURNING, so no event (and no `alongside` row) is written when nothing moved.
    // The account events of the move (design.md 13) are stored, numbered, by the same statement.
    const events = accountEventCtes(makerHears(move.from, move.to) ? 'true' : 'false', '$4::bigint');
    const rows = await sqlRows<RfqRow & { account_seqs: Record<string, string> | null }>(
      m,
      `WITH moved AS (UPDATE rfqs SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')} RETURNING ${RFQ_COLUMNS}),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, state, state, $4::bigint FROM moved)${slot}${alongside}${events}
       SELECT moved.*${refuse}, ${ACCOUNT_SEQS_COLUMN} FROM moved`,
      params,
    );
    if (rows.length === 0) return null;
    return withAccountSeqs(toRfqRecord(rows[0]), rows[0].account_seqs);
  }

  /**
   * The events of a committed move (design.md section 5, Events): the taker hears every move on
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

  /**
   * Every pending or quoted RFQ whose deadline has come (the RFQ's `expires_at` while pending, the
   * quote's while quoted; at or before `now`, unix seconds) moves to expired: one conditional
   * UPDATE of at most `limit` of them, earliest deadline first, with their event rows, in one
   * statement; then their events in one broadcast. A row another mover took first is left alone
   * (the UPDATE re-checks state and deadline on the row it locks). The moves made.
   */
  async expireDue(now: number, limit: number): Promise<MovedRfq[]> {
    const rows = await sqlRows<RfqRow & { account_seqs: Record<string, string> | null }>(
      this.db.dataSource,
      `WITH due AS (SELECT id FROM rfqs WHERE state IN ('pending', 'quoted') AND expiry_deadline <= $1 ORDER BY expiry_deadline, id LIMIT $2),
            moved AS (UPDATE rfqs SET state = 'expired', updated_at = $1, ended_at = $1
                       WHERE id IN (SELECT id FROM due) AND state IN ('pending', 'quoted') AND expiry_deadline <= $1
                       RETURNING ${RFQ_COLUMNS}),
            logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'expired', 'expired', $1::bigint FROM moved),
            freed AS (UPDATE accounts a SET open_rfqs = a.open_rfqs - n.count
                        FROM (SELECT account_id, count(*) AS count FROM moved GROUP BY account_id) n WHERE a.id = n.account_id)${accountEventCtes('true', '$1::bigint')}
       SELECT moved.*, ${ACCOUNT_SEQS_COLUMN} FROM moved ORDER BY id`,
      [now, limit],
    );
    // Only a quoted RFQ holds a quote: that is the state it left.
    const moves = rows.map((row): MovedRfq => {
      const moved = withAccountSeqs(toRfqRecord(row), row.account_seqs);
      return { moved, from: moved.quote ? 'quoted' : 'pending' };
    });
    await this.announceAll(moves);
    return moves;
  }

  private eventsOf({ moved, from, seconds }: MovedRfq): Notification[] {
    this.metrics.rfqMoved(from, moved.state, seconds ?? (moved.state === 'quoted' ? moved.updatedAt - moved.createdAt : undefined));
    // accepted or submitting → failed is a check at fill that failed (a revert moves from filled).
    if (moved.state === 'failed' && from !== 'filled' && moved.failure) this.metrics.ledgerFailure(moved.failure.error);
    const notifications: Notification[] = [{ channel: 'rfq', accountId: moved.accountId, data: accountEventData('rfq', moved, moved.accountSeqs?.rfq)! }];
    if (from === 'pending') {
      const except = moved.state === 'quoted' ? moved.quote?.makerAccountId : moved.state === 'declined' ? moved.declinedBy : moved.accountId;
      notifications.push({ channel: 'rfq_maker', exceptAccountId: except ?? undefined, data: { event: 'closed', rfq: closedRfqView(moved) } });
    } else if (makerHears(from, moved.state) && moved.quote) {
      const data = accountEventData('rfq_maker', moved, moved.accountSeqs?.rfq_maker);
      if (data) notifications.push({ channel: 'rfq_maker', accountId: moved.quote.makerAccountId, data });
    }
    return notifications;
  }

  /** A new RFQ (— → pending): every subscribed quoter but the taker hears `created`; counted. */
  async created(rfq: RfqRecord): Promise<void> {
    this.metrics.rfqMoved(null, 'pending');
    await this.publish([{ channel: 'rfq_maker', exceptAccountId: rfq.accountId, data: { event: 'created', rfq: openRfqView(rfq) } }]);
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
