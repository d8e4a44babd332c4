import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database, withTimeout } from '../../common/database/database';
import { httpDecimalSql, isoTimeSql } from '../../common/database/http-format.sql';
import { JobRunner } from '../../common/jobs/job-runner';

/** How long the overview waits for the queue depths before it answers without them. */
export const QUEUE_DEPTHS_TIMEOUT_MS = 1000;
/** Minutes of history in the overview's fills-per-minute series. */
export const FILLS_WINDOW_MINUTES = 30;
export const RFQ_STATES = ['pending', 'quoted', 'accepted', 'submitting', 'filled', 'declined', 'expired', 'failed'] as const;
export type RfqStateName = (typeof RFQ_STATES)[number];
const OPEN_STATES: RfqStateName[] = ['pending', 'quoted', 'accepted', 'submitting'];
const ENDED_STATES: RfqStateName[] = ['filled', 'declined', 'expired', 'failed'];
/** The overview counts ended RFQs created this long ago or later. */
export const ENDED_WINDOW_SECONDS = 86_400;

/** The smallest UUIDv7 id (32 hex) of a millisecond: every RFQ created at or after it sorts at or after it. */
export const uuidV7Floor = (ms: number) => Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0') + '0'.repeat(20);

export interface Overview {
  queues: Record<string, number>;
  /** Open states: every RFQ; ended states: RFQs created in the last ENDED_WINDOW_SECONDS. */
  rfqs_by_state: Record<RfqStateName, number>;
  /** One point per minute (unix seconds of its start), oldest first, zeros included. */
  fills_per_minute: Array<{ minute: number; fills: number }>;
}

export interface AdminRfqRow {
  rfq_id: string;
  account_id: number;
  asset: string;
  expiry: number;
  legs: Array<{ instrument: string; quantity: string }>;
  state: RfqStateName;
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

export interface MarketDataAge {
  asset: string;
  index_price: string;
  updated_at: string;
  age_seconds: number;
  stale: boolean;
}

export interface AccountRow {
  account_id: number;
  wallet: string;
  roles: string[];
  created_at: string;
}

/**
 * The operator console's reads (docs/console.md): what an admin watches, in one or two queries
 * each, off indexes (migration ConsoleReads). Read-only: every change still goes through the
 * owning module's admin command.
 */
@Injectable()
export class ConsoleReadsService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async overview(nowSeconds: number): Promise<Overview> {
    const firstMinute = Math.floor(nowSeconds / 60) * 60 - (FILLS_WINDOW_MINUTES - 1) * 60;
    const [states, fills, queues] = await Promise.all([
      // Open RFQs all; ended ones of the last day only (ids are UUIDv7 hex, time ordered): each
      // branch is a range scan of rfqs_state, bounded by what is open and a day's volume, not by
      // the table (every state counted: 180 ms at a million rows, measured; too much every 2 s).
      this.db.dataSource.query(
        `SELECT state, count(*)::int AS n FROM rfqs WHERE state IN (${OPEN_STATES.map((s) => `'${s}'`).join(', ')}) GROUP BY state
         UNION ALL
         SELECT state, count(*)::int AS n FROM rfqs WHERE state IN (${ENDED_STATES.map((s) => `'${s}'`).join(', ')}) AND id >= $1 GROUP BY state`,
        [uuidV7Floor((nowSeconds - ENDED_WINDOW_SECONDS) * 1000)],
      ) as Promise<Array<{ state: RfqStateName; n: number }>>,
      this.db.dataSource.query(`SELECT (filled_at / 60) * 60 AS minute, count(*)::int AS n FROM fills WHERE filled_at >= $1 GROUP BY 1`, [firstMinute]) as Promise<
        Array<{ minute: string; n: number }>
      >,
      // Queue depths come from Redis: a Redis outage must not blank (or, while BullMQ waits for a
      // reconnect, hang) the rest of the page.
      withTimeout(this.jobs.depths(), QUEUE_DEPTHS_TIMEOUT_MS).catch(() => ({}) as Record<string, number>),
    ]);
    const byState = Object.fromEntries(RFQ_STATES.map((s) => [s, 0])) as Record<RfqStateName, number>;
    for (const row of states) byState[row.state] = row.n;
    const counts = new Map(fills.map((row) => [Number(row.minute), row.n]));
    const series = Array.from({ length: FILLS_WINDOW_MINUTES }, (_, i) => firstMinute + i * 60).map((minute) => ({ minute, fills: counts.get(minute) ?? 0 }));
    return { queues, rfqs_by_state: byState, fills_per_minute: series };
  }

  /** RFQs newest first (ids are time ordered), optionally of one state and/or one taker, before a cursor. */
  async rfqs(filter: { state?: RfqStateName; accountId?: number; before?: string; limit: number }): Promise<AdminRfqRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.state) where.push(`state = $${params.push(filter.state)}`);
    if (filter.accountId !== undefined) where.push(`account_id = $${params.push(filter.accountId)}`);
    if (filter.before) where.push(`id < $${params.push(filter.before)}`);
    params.push(filter.limit);
    const rows: any[] = await this.db.dataSource.query(
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
  async rfqEvents(rfqId: string): Promise<RfqEventRow[] | null> {
    const rows: any[] = await this.db.dataSource.query(
      `SELECT e.id::text AS id, e.event, e.state, e.at FROM rfqs r LEFT JOIN rfq_events e ON e.rfq_id = r.id WHERE r.id = $1 ORDER BY e.id`,
      [rfqId],
    );
    if (rows.length === 0) return null;
    return rows.filter((r) => r.id !== null).map((r) => ({ id: r.id, event: r.event, state: r.state, at: Number(r.at) }));
  }

  /** The account of a wallet (the wallet is unique), as a list so that a miss is an empty one. */
  async accountsByWallet(wallet: string): Promise<AccountRow[]> {
    const rows: any[] = await this.db.dataSource.query(`SELECT id, wallet, roles, ${isoTimeSql('created_at')} AS created_at FROM accounts WHERE wallet = $1`, [wallet]);
    return rows.map((r) => ({ account_id: Number(r.id), wallet: r.wallet, roles: r.roles, created_at: r.created_at }));
  }

  /** Every asset's index price with its age; stale past MARKET_DATA_MAX_AGE_SECONDS (the age rfq.create refuses). */
  async marketData(nowSeconds: number): Promise<{ max_age_seconds: number; assets: MarketDataAge[] }> {
    const maxAge = this.config.marketDataMaxAgeSeconds;
    const rows: any[] = await this.db.dataSource.query(
      `SELECT asset, ${httpDecimalSql('index_price')} AS index_price, ${isoTimeSql('updated_at')} AS updated_at, extract(epoch FROM updated_at)::float8 AS epoch FROM index_prices ORDER BY asset`,
    );
    return {
      max_age_seconds: maxAge,
      assets: rows.map((r) => {
        const age = Math.max(0, Math.floor(nowSeconds - Number(r.epoch)));
        return { asset: r.asset, index_price: r.index_price, updated_at: r.updated_at, age_seconds: age, stale: age > maxAge };
      }),
    };
  }
}
