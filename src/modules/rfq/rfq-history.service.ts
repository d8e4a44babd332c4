import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { logger } from '../../common/logging/logger';
import { MetricsService } from '../health/metrics.service';
import { EVENT_RETENTION_SECONDS } from './domain/account-event';
import { REST_PER_STATEMENT, historyCutoff, historySeconds, nextBatchRows, retentionLag } from './domain/history';
import { GROWING_TABLES, RfqHistoryRepository } from './rfq-history.repository';

/** The sweep's period at the least: history is kept for days, there is no second to chase. */
const MIN_PERIOD_MS = 10_000;
/** The embedded database has no autovacuum: the sweep refreshes its row estimates this often. */
const EMBEDDED_ANALYZE_MS = 3_600_000;

/** What one pass did. */
interface HistoryPass {
  deleted: number;
  kept: number;
  events: number;
}

/**
 * A year of history (docs/spec/design.md 17): RFQ_HISTORY_DAYS after an RFQ ended, the sweep deletes
 * it with its rfq_events and accept when it has no fill (rfq.get then answers RFQ_NOT_FOUND), and
 * only its rfq_events when it has one (the RFQ, its fill, legs and receipts are the record, kept
 * for ever). Account events (EventRetentionService, 7 days) and sign-in nonces (NonceService) have their
 * own sweeps.
 *
 * Deletion never stalls trading: every statement is its own short transaction of at most
 * MAX_BATCH_ROWS rows, sized down when one takes longer than TARGET_STATEMENT_MS, and the sweep
 * rests twenty times as long as its last statement took before the next, so at most a twenty-first of the
 * database's time (on the embedded database, its one session) is the sweep's while a backlog drains. Runs on
 * every instance like the other sweeps: the statements are idempotent and SKIP LOCKED rows another
 * instance holds.
 */
@Injectable()
export class RfqHistoryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly periodic: PeriodicSweep;
  // Starts small and grows while statements stay quick: the first statements of a backlog find out what the database affords.
  private batchRows = 200;
  private analyzedAt = 0;
  // The last statement's time: the rest before the next statement of the same pass is sized from it.
  private lastStatementMs = 0;

  constructor(
    private readonly history: RfqHistoryRepository,
    private readonly clock: Clock,
    metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('rfq history sweep', Math.max(config.sweepIntervalMs, MIN_PERIOD_MS), async () => void (await this.prune()));
    metrics.growthSource(() => this.growth());
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass now (or the one running); never throws. */
  sweep(): Promise<void> {
    return this.periodic.run();
  }

  /** Deletes what is past RFQ_HISTORY_DAYS, statement by statement, until nothing is due or the app stops. */
  async prune(): Promise<HistoryPass> {
    const pass: HistoryPass = { deleted: 0, kept: 0, events: 0 };
    this.lastStatementMs = 0;
    const cutoff = historyCutoff(this.clock.now(), this.config.rfqHistoryDays);
    while (!this.periodic.stopped) {
      // Half a statement's rows: the RFQs, and in the same statement their accepts.
      const due = await this.timed(() => this.history.due(cutoff, Math.floor(this.batchRows / 2)));
      if (due.length === 0) break;
      pass.events += await this.deleteEvents(due.map((r) => r.id));
      // A shutdown waits for the statement running, not for the rest of the batch.
      if (this.periodic.stopped) break;
      const unfilled = due.filter((r) => !r.kept).map((r) => r.id);
      const kept = due.filter((r) => r.kept).map((r) => r.id);
      const deleted = unfilled.length > 0 ? await this.timed(() => this.history.deleteUnfilled(unfilled, cutoff)) : 0;
      const marked = kept.length > 0 ? await this.timed(() => this.history.markEventsPruned(kept, cutoff)) : 0;
      pass.deleted += deleted;
      pass.kept += marked;
      // Every row held by another statement was skipped: the next pass takes them rather than this one spinning.
      if (deleted + marked === 0) break;
    }
    if (pass.deleted + pass.kept > 0) logger.event('info', 'rfq history pruned', { ...pass }, 'Rfq');
    await this.analyzeEmbedded();
    return pass;
  }

  /** The series of `legwork_table_rows` and `legwork_retention_lag_seconds` (read on scrape, cached there). */
  async growth(): Promise<{ rows: Record<string, number>; lagSeconds: number }> {
    const [rows, oldest] = await Promise.all([this.history.tableRows(), this.history.oldest()]);
    const lagSeconds = retentionLag(this.clock.now(), [
      { at: oldest.rfqEndedAt, keepSeconds: historySeconds(this.config.rfqHistoryDays) },
      { at: oldest.accountEventAt, keepSeconds: EVENT_RETENTION_SECONDS },
    ]);
    return { rows, lagSeconds };
  }

  /** The rfq_events of the RFQs `ids`, a statement of at most the current batch size at a time; how many. */
  private async deleteEvents(ids: readonly string[]): Promise<number> {
    let total = 0;
    for (;;) {
      const limit = this.batchRows;
      const n = await this.timed(() => this.history.deleteEvents(ids, limit));
      total += n;
      if (n < limit || this.periodic.stopped) return total;
    }
  }

  /**
   * Rests REST_PER_STATEMENT times as long as the pass's previous statement took (the trading path's
   * statements get at least twenty times as much of the database as the sweep), then runs one
   * statement and sizes the next from its time. A pass ends without a rest after its last
   * statement, and `stop()` cuts a rest short.
   */
  private async timed<T>(statement: () => Promise<T>): Promise<T> {
    await this.periodic.rest(Math.ceil(this.lastStatementMs * REST_PER_STATEMENT));
    const started = performance.now();
    const result = await statement();
    this.lastStatementMs = performance.now() - started;
    this.batchRows = nextBatchRows(this.batchRows, this.lastStatementMs);
    return result;
  }

  /** On the embedded database (no autovacuum), refreshes the row estimates hourly, one table per statement. */
  private async analyzeEmbedded(): Promise<void> {
    if (this.config.databaseUrl !== null || this.clock.nowMs() - this.analyzedAt < EMBEDDED_ANALYZE_MS) return;
    this.analyzedAt = this.clock.nowMs();
    for (const table of GROWING_TABLES) {
      if (this.periodic.stopped) return;
      await this.timed(() => this.history.analyze(table)).catch((error) =>
        logger.event('warn', 'row estimates not refreshed', { table, error: String(error) }, 'Rfq'),
      );
    }
  }
}
