import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { withTimeout } from '../../common/database/database';
import { JobRunner } from '../../common/jobs/job-runner';
import { AccountsService, type AccountView, accountView } from '../accounts/accounts.service';
import { FillReadsService } from '../ledger/fill-reads.service';
import { MarketDataService } from '../market-data/market-data.service';
import { RFQ_STATES, type RfqState } from '../rfq/domain/rfq-state';
import { type AdminRfqFilter, type AdminRfqRow, type RfqEventRow, RfqReadsService } from '../rfq/rfq-reads.service';

/** How long the overview waits for the queue depths before it answers without them. */
const QUEUE_DEPTHS_TIMEOUT_MS = 1000;
/** Minutes of history in the overview's fills-per-minute series. */
const FILLS_WINDOW_MINUTES = 30;
const OPEN_STATES: RfqState[] = ['pending', 'quoted', 'accepted', 'submitting'];
const ENDED_STATES: RfqState[] = ['filled', 'declined', 'expired', 'failed'];
/** The overview counts ended RFQs created this long ago or later. */
const ENDED_WINDOW_SECONDS = 86_400;

/** The smallest UUIDv7 id (32 hex) of a millisecond: every RFQ created at or after it sorts at or after it. */
export const uuidV7Floor = (ms: number) => Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0') + '0'.repeat(20);

export interface Overview {
  queues: Record<string, number>;
  /** Open states: every RFQ; ended states: RFQs created in the last ENDED_WINDOW_SECONDS. */
  rfqs_by_state: Record<RfqState, number>;
  /** One point per minute (unix seconds of its start), oldest first, zeros included. */
  fills_per_minute: Array<{ minute: number; fills: number }>;
}

export interface MarketDataAge {
  asset: string;
  index_price: string;
  updated_at: string;
  age_seconds: number;
  stale: boolean;
}

/**
 * The operator console's reads (docs/console.md): what an admin watches, in one or two queries
 * each, off indexes (migration ConsoleReads). Read-only: every change still goes through the
 * owning module's admin command.
 */
@Injectable()
export class ConsoleReadsService {
  constructor(
    private readonly rfqReads: RfqReadsService,
    private readonly fillReads: FillReadsService,
    private readonly accounts: AccountsService,
    private readonly marketDataService: MarketDataService,
    private readonly jobs: JobRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async overview(nowSeconds: number): Promise<Overview> {
    const firstMinute = Math.floor(nowSeconds / 60) * 60 - (FILLS_WINDOW_MINUTES - 1) * 60;
    const [states, counts, queues] = await Promise.all([
      // Open RFQs all; ended ones of the last day only (ids are UUIDv7 hex, time ordered).
      this.rfqReads.countByState(OPEN_STATES, ENDED_STATES, uuidV7Floor((nowSeconds - ENDED_WINDOW_SECONDS) * 1000)),
      this.fillReads.perMinute(firstMinute),
      // Queue depths come from Redis: a Redis outage must not blank (or, while BullMQ waits for a
      // reconnect, hang) the rest of the page.
      withTimeout(this.jobs.depths(), QUEUE_DEPTHS_TIMEOUT_MS).catch(() => ({})),
    ]);
    const byState = Object.fromEntries(RFQ_STATES.map((s) => [s, 0])) as Record<RfqState, number>;
    for (const row of states) byState[row.state] = row.n;
    const series = Array.from({ length: FILLS_WINDOW_MINUTES }, (_, i) => firstMinute + i * 60).map((minute) => ({ minute, fills: counts.get(minute) ?? 0 }));
    return { queues, rfqs_by_state: byState, fills_per_minute: series };
  }

  /** RFQs newest first (ids are time ordered), optionally of one state and/or one taker, before a cursor. */
  rfqs(filter: AdminRfqFilter): Promise<AdminRfqRow[]> {
    return this.rfqReads.list(filter);
  }

  /** Every state move of one RFQ, in order; null when there is no such RFQ. */
  rfqEvents(rfqId: string): Promise<RfqEventRow[] | null> {
    return this.rfqReads.events(rfqId);
  }

  /** The account of a wallet (the wallet is unique), as a list so that a miss is an empty one. */
  async accountsByWallet(wallet: string): Promise<AccountView[]> {
    const account = await this.accounts.findByWallet(wallet);
    return account ? [accountView(account)] : [];
  }

  /** Every asset's index price with its age; stale past MARKET_DATA_MAX_AGE_SECONDS (the age rfq.create refuses). */
  async marketData(nowSeconds: number): Promise<{ max_age_seconds: number; assets: MarketDataAge[] }> {
    const maxAge = this.config.marketDataMaxAgeSeconds;
    const rows = await this.marketDataService.indexAges();
    return {
      max_age_seconds: maxAge,
      assets: rows.map((r) => {
        const age = Math.max(0, Math.floor(nowSeconds - Number(r.epoch)));
        return { asset: r.asset, index_price: r.index_price, updated_at: r.updated_at, age_seconds: age, stale: age > maxAge };
      }),
    };
  }
}
