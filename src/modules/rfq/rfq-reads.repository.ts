import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { httpDecimalSql } from '../../common/database/http-format.sql';
import type { Maybe, Narrow, Row } from '../../common/database/table';
import type { RfqState } from './domain/rfq-state';

/** An RFQ as the operator console lists it (HTTP output forms: PostgreSQL formats the decimals). */
export interface AdminRfqRow {
  rfq_id: string;
  account_id: number;
  asset: string;
  expiry: number;
  legs: Array<{ instrument: string; quantity: string }>;
  state: RfqState;
  created_at: number;
  updated_at: number;
  maker_account_id: number | null;
  bid: string | null;
  ask: string | null;
  accepted_side: 'buy' | 'sell' | null;
  fill_id: string | null;
  fill_price: string | null;
  fill_reverted: boolean;
  failure_error: string | null;
  decline_reason: string | null;
}

export interface RfqEventRow {
  id: string;
  event: string;
  state: string;
  at: number;
}

/** Which RFQs the console lists: newest first, optionally of one state and/or one taker, before a cursor (an id). */
export interface AdminRfqFilter {
  state?: RfqState;
  accountId?: number;
  before?: string;
  limit: number;
}

/** What `list` selects: the rfqs columns of AdminRfqRow (bid, ask and fill_price formatted by PostgreSQL, still text). */
type AdminRfqDbRow = Narrow<
  Row<
    'rfqs',
    | 'id'
    | 'account_id'
    | 'asset'
    | 'expiry'
    | 'legs'
    | 'state'
    | 'created_at'
    | 'updated_at'
    | 'maker_account_id'
    | 'bid'
    | 'ask'
    | 'accepted_side'
    | 'fill_id'
    | 'fill_price'
    | 'fill_reverted'
    | 'failure_error'
    | 'decline_reason'
  >,
  Pick<AdminRfqRow, 'legs' | 'state' | 'accepted_side'>
>;

/** A move of `events`: the RFQ's row left-joined to its events (an RFQ with none gives one row of nulls). */
type EventDbRow = Row<'rfq_events', 'id' | 'event' | 'state' | 'at'>;

/**
 * The rfq module's read-only statements for the operator console (docs/console.md) over `rfqs`
 * and `rfq_events`, off the indexes of migration ConsoleReads. Owned here so that no other module
 * names these tables; the console asks through this class, exported by RfqModule.
 */
@Injectable()
export class RfqReadsRepository {
  constructor(private readonly db: Database) {}

  /**
   * RFQs by state: every one in `open` states, and those in `ended` states whose id is at or after
   * `sinceId` (ids are UUIDv7 hex, time ordered: each branch is a range scan of rfqs_state,
   * bounded by what is open and a day's volume, not by the table; every state counted costs
   * 180 ms at a million rows, measured: too much every 2 s).
   */
  async countByState(open: readonly RfqState[], ended: readonly RfqState[], sinceId: string): Promise<Array<{ state: RfqState; n: number }>> {
    // The states are the domain's constants, written into the text: IN lists the planner sees.
    const list = (states: readonly RfqState[]) => states.map((s) => `'${s}'`).join(', ');
    return this.db.rows<Narrow<Row<'rfqs', 'state'>, { state: RfqState }> & { n: number }>(
      `SELECT state, count(*)::int AS n FROM rfqs WHERE state IN (${list(open)}) GROUP BY state
       UNION ALL
       SELECT state, count(*)::int AS n FROM rfqs WHERE state IN (${list(ended)}) AND id >= $1 GROUP BY state`,
      [sinceId],
    );
  }

  async list(filter: AdminRfqFilter): Promise<AdminRfqRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.state) where.push(`state = $${params.push(filter.state)}`);
    if (filter.accountId !== undefined) where.push(`account_id = $${params.push(filter.accountId)}`);
    if (filter.before) where.push(`id < $${params.push(filter.before)}`);
    params.push(filter.limit);
    const rows = await this.db.rows<AdminRfqDbRow>(
      `SELECT id, account_id, asset, expiry, legs, state, created_at, updated_at, maker_account_id,
              ${httpDecimalSql('bid')} AS bid, ${httpDecimalSql('ask')} AS ask, accepted_side, fill_id::text AS fill_id,
              ${httpDecimalSql('fill_price')} AS fill_price, fill_reverted, failure_error, decline_reason
         FROM rfqs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      rfq_id: r.id,
      account_id: Number(r.account_id),
      asset: r.asset,
      expiry: Number(r.expiry),
      legs: r.legs,
      state: r.state,
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
      maker_account_id: r.maker_account_id === null ? null : Number(r.maker_account_id),
      bid: r.bid,
      ask: r.ask,
      accepted_side: r.accepted_side,
      fill_id: r.fill_id,
      fill_price: r.fill_price,
      fill_reverted: r.fill_reverted,
      failure_error: r.failure_error,
      decline_reason: r.decline_reason,
    }));
  }

  /** Every state move of one RFQ, in order; null when there is no such RFQ. */
  async events(rfqId: string): Promise<RfqEventRow[] | null> {
    const rows = await this.db.rows<Maybe<EventDbRow>>(
      `SELECT e.id::text AS id, e.event, e.state, e.at FROM rfqs r LEFT JOIN rfq_events e ON e.rfq_id = r.id WHERE r.id = $1 ORDER BY e.id`,
      [rfqId],
    );
    if (rows.length === 0) return null;
    return rows.filter((r): r is EventDbRow => r.id !== null).map((r) => ({ id: r.id, event: r.event, state: r.state, at: Number(r.at) }));
  }
}
