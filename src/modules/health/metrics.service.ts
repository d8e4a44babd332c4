import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ViewVersions } from '../../common/broadcast/view-versions';
import { BoundCounter, BoundHistogram, type CounterSeries, type HistogramSeries } from './bound-series';
import { withTimeout } from '../../common/database/database';
import { JobRunner } from '../../common/jobs/job-runner';
import { QUEUES } from '../../common/jobs/queues';
import { logger } from '../../common/logging/logger';
import { isRfqState } from '@legwork/protocol';

/** Seconds, from 1 ms to 10 s: JSON-RPC calls and HTTP requests. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds, from 100 ms to 1 h: how long an RFQ waits for a quote or for its fill. */
const LIFECYCLE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * Seconds, from 0.25 ms to 2.5 s: the journal head's lock (its wait and its hold per append). Fine
 * below 50 ms, where the hold sits on a quiet machine, so that the bench reads p50/p99 from them.
 */
const HEAD_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25,
  0.5, 1, 2.5,
];

/** How long one read of the history gauges serves scrapes: they cost a catalog read and two index probes. */
const GROWTH_CACHE_MS = 5_000;

/** Labelled series kept for reuse per metric (the label values are bounded; this is a safety cap). */
const SERIES_CACHE_MAX = 10_000;

/** A label value taken from outside the code: bounded charset and length. */
function safeLabel(value: string, fallback = 'other'): string {
  return /^[A-Za-z0-9_.:/-]{1,64}$/.test(value) ? value : fallback;
}

/**
 * The Prometheus series of one application instance (`GET /metrics`). One registry per instance
 * (not prom-client's global one), so several instances can live in one process (tests).
 *
 * Other modules inject this service (HealthModule is global) and call the methods below; they
 * never touch prom-client themselves, so names and labels stay in this file.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  // Counted on every call and request: bound series (bound-series.ts), not prom-client's children.
  private readonly rpcCalls = new BoundCounter({
    name: 'legwork_rpc_calls_total',
    help: 'JSON-RPC calls by method and outcome (ok, or the error code name: data.error of the reply)',
    labelNames: ['method', 'outcome'] as const,
    registry: this.registry,
  });

  private readonly rpcDuration = new BoundHistogram({
    name: 'legwork_rpc_call_duration_seconds',
    help: 'Time from dispatch to reply of a JSON-RPC call, by method',
    labelNames: ['method'] as const,
    buckets: REQUEST_BUCKETS,
    registry: this.registry,
  });

  private readonly wsConnections = new Gauge({
    name: 'legwork_ws_connections',
    help: 'Open WebSocket connections to /client on this instance',
    registers: [this.registry],
  });

  private readonly httpRequests = new BoundCounter({
    name: 'legwork_http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registry: this.registry,
  });

  private readonly httpDuration = new BoundHistogram({
    name: 'legwork_http_request_duration_seconds',
    help: 'HTTP request duration by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: REQUEST_BUCKETS,
    registry: this.registry,
  });

  private readonly rfqTransitions = new Counter({
    name: 'legwork_rfq_transitions_total',
    help: 'RFQ state moves (from "none" for a new RFQ)',
    labelNames: ['from', 'to'] as const,
    registers: [this.registry],
  });

  private readonly quoteLatency = new Histogram({
    name: 'legwork_rfq_quote_latency_seconds',
    help: 'Time from RFQ creation to its quote (pending -> quoted)',
    buckets: LIFECYCLE_BUCKETS,
    registers: [this.registry],
  });

  private readonly fillLatency = new Histogram({
    name: 'legwork_rfq_fill_latency_seconds',
    help: 'Time from accept to fill (accepted -> filled)',
    buckets: LIFECYCLE_BUCKETS,
    registers: [this.registry],
  });

  private readonly headWait = new Histogram({
    name: 'legwork_journal_head_wait_seconds',
    help: "Time of the statement that takes the journal head's lock for a batch of receipts (observed once per receipt): one round trip plus the wait for the holder",
    buckets: HEAD_BUCKETS,
    registers: [this.registry],
  });

  private readonly headHold = new Histogram({
    name: 'legwork_journal_head_hold_seconds',
    help: "Time the journal head's lock is held per receipt (fill or revert): a batch's hold (from its write's UPDATE of the head to the reply of its commit, or under the lock from the lock statement to the COMMIT's reply) divided among its receipts",
    buckets: HEAD_BUCKETS,
    registers: [this.registry],
  });

  private readonly ledgerFailures = new Counter({
    name: 'legwork_ledger_failures_total',
    help: 'Ledger writes refused or failed, by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  /** Labelled children by label values: a call finds its series without hashing its labels each time. */
  private readonly rpcSeries = new Map<string, Map<string, { calls: CounterSeries; duration: HistogramSeries | null }>>();
  private readonly httpSeries = new Map<string, { requests: CounterSeries; duration: HistogramSeries }>();

  /** `views` is always injected in the app; a unit test that builds this service alone may leave it out. */
  constructor(jobs: JobRunner, views?: ViewVersions) {
    collectDefaultMetrics({ register: this.registry });
    // The one signal that this instance refuses rfq.* writes because it cannot confirm a cached view
    // (design.md section 11); RFQ_NOT_READY alone does not tell this cause from the others.
    new Gauge({
      name: 'legwork_stale_views',
      help: 'Views of this instance not confirmed current for 30 s: while above 0, rfq.* writes answer RFQ_NOT_READY (read at scrape time)',
      registers: [this.registry],
      collect() {
        this.set(views?.stale().length ?? 0);
      },
    });
    new Gauge({
      name: 'legwork_queue_depth',
      help: 'Jobs waiting, delayed or active per queue (read at scrape time)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        let depths: Record<string, number>;
        try {
          depths = await withTimeout(jobs.depths(), 1000);
        } catch (error) {
          // Redis down: the scrape still answers; the depth series keep their last values.
          logger.event('warn', 'queue depths unavailable', { error: String(error) }, 'Metrics');
          return;
        }
        for (const queue of Object.values(QUEUES)) this.set({ queue }, depths[queue] ?? 0);
        for (const [queue, depth] of Object.entries(depths)) this.set({ queue: safeLabel(queue) }, depth);
      },
    });
  }

  /**
   * One JSON-RPC reply: `method` one of RPC_METHODS, `unknown` (not a method) or `invalid` (not a
   * request); `outcome` is `ok` or the error code name; `seconds` the handling time, when a method ran.
   */
  rpcCall(method: string, outcome: string, seconds?: number): void {
    // By method, then outcome: no key string is built per call.
    let outcomes = this.rpcSeries.get(method);
    if (!outcomes) {
      outcomes = new Map();
      // Label values are bounded (safeLabel, methods of the interface, error code names): so are these maps.
      if (this.rpcSeries.size < SERIES_CACHE_MAX) this.rpcSeries.set(method, outcomes);
    }
    let series = outcomes.get(outcome);
    if (!series) {
      series = { calls: this.rpcCalls.series({ method: safeLabel(method, 'unknown'), outcome: safeLabel(outcome, 'error') }), duration: null };
      if (outcomes.size < SERIES_CACHE_MAX) outcomes.set(outcome, series);
    }
    series.calls.inc();
    if (seconds === undefined) return;
    // Bound at its first observation: a method that never ran (`invalid`) lists no duration series.
    series.duration ??= this.rpcDuration.series({ method: safeLabel(method, 'unknown') });
    series.duration.observe(seconds);
  }

  wsConnected(): void {
    this.wsConnections.inc();
  }

  wsDisconnected(): void {
    this.wsConnections.dec();
  }

  /** One HTTP response; `route` is the route pattern (`/v1/admin/accounts/:account_id`), never the raw URL. */
  httpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const r = route ?? 'unmatched';
    const key = `${method} ${r} ${status}`;
    let series = this.httpSeries.get(key);
    if (!series) {
      series = { requests: this.httpRequests.series({ method, route: r, status: String(status) }), duration: this.httpDuration.series({ method, route: r }) };
      if (this.httpSeries.size < SERIES_CACHE_MAX) this.httpSeries.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }

  /**
   * An RFQ moved `from` → `to` (`from` null for a new RFQ). `seconds`, when given, is the time the
   * step took: for `to = 'quoted'` since the RFQ was created, for `to = 'filled'` since it was
   * accepted; it feeds the quote and fill latency histograms.
   */
  rfqMoved(from: string | null, to: string, seconds?: number): void {
    const fromLabel = from === null ? 'none' : isRfqState(from) ? from : 'other';
    // The RFQ states of docs/spec/interface.md 2.1 are the only values a transition label may take (bounded cardinality).
    const toLabel = isRfqState(to) ? to : 'other';
    this.rfqTransitions.inc({ from: fromLabel, to: toLabel });
    if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return;
    if (toLabel === 'quoted') this.quoteLatency.observe(seconds);
    else if (toLabel === 'filled') this.fillLatency.observe(seconds);
  }

  /**
   * One committed batch of the journal's appender (JournalAppender): `waitSeconds` the statement
   * that took the head's lock, `holdSeconds` from its reply to the COMMIT's reply, shared among
   * its `receipts` (each is observed with the batch's wait and its share of the hold, so the
   * histogram's mean is the hold per receipt). Batches serialize on the head: receipts / hold is
   * the chain's ceiling in appends per second (docs/receipts.md).
   */
  journalHead(waitSeconds: number, holdSeconds: number, receipts = 1): void {
    for (let i = 0; i < receipts; i++) {
      this.headWait.observe(waitSeconds);
      this.headHold.observe(holdSeconds / receipts);
    }
  }

  /** The ledger refused or failed a write (RFQ_ATTESTATION_FAILED, RFQ_TX_FAILED, …). */
  ledgerFailure(code: string): void {
    this.ledgerFailures.inc({ code: safeLabel(code) });
  }

  /**
   * The live-collateral gauges (docs/spec/design.md section 12), read at scrape time from `read`: how many
   * accounts have `available < 0`, and the USDC they are short (minus the sum of their negative
   * `available`, so 0 when none is). A failed read leaves the last values.
   */
  collateralSource(read: () => Promise<{ accounts: number; deficit: bigint }>): void {
    let last: Promise<{ accounts: number; deficit: bigint } | null> | null = null;
    // One read per scrape for both gauges: the first collect starts it, the second reuses it.
    const shared = () =>
      (last ??= withTimeout(read(), 1000)
        .catch((error) => {
          logger.event('warn', 'collateral gauges unavailable', { error: String(error) }, 'Metrics');
          return null;
        })
        .finally(() => setImmediate(() => (last = null))));
    new Gauge({
      name: 'legwork_under_collateralized_accounts',
      help: 'Accounts whose available balance (total - locked) is below zero (read at scrape time)',
      registers: [this.registry],
      async collect() {
        const value = await shared();
        if (value) this.set(value.accounts);
      },
    });
    new Gauge({
      name: 'legwork_deficit_usdc',
      help: 'USDC the under-collateralized accounts are short: minus the sum of their negative available balances (read at scrape time)',
      registers: [this.registry],
      async collect() {
        const value = await shared();
        if (value) this.set(Number(value.deficit) / 1e6);
      },
    });
  }

  /**
   * The growth gauges (docs/spec/design.md 17), read at scrape time from `read`, at most once per
   * GROWTH_CACHE_MS: `legwork_table_rows{table}`, the planner's estimate of each growing table's
   * rows, and `legwork_retention_lag_seconds`, how long the oldest row past its retention has been
   * past it (0 when the sweeps keep up). A failed read leaves the last values.
   */
  growthSource(read: () => Promise<{ rows: Record<string, number>; lagSeconds: number }>): void {
    let cached: { at: number; value: Promise<{ rows: Record<string, number>; lagSeconds: number } | null> } | null = null;
    const shared = () => {
      const now = Date.now();
      if (!cached || now - cached.at >= GROWTH_CACHE_MS) {
        const value = withTimeout(read(), 1000).catch((error) => {
          logger.event('warn', 'growth gauges unavailable', { error: String(error) }, 'Metrics');
          cached = null;
          return null;
        });
        cached = { at: now, value };
      }
      return cached.value;
    };
    new Gauge({
      name: 'legwork_table_rows',
      help: "Rows of each table that grows with history: the planner's estimate (pg_class.reltuples), read at scrape time",
      labelNames: ['table'] as const,
      registers: [this.registry],
      async collect() {
        const value = await shared();
        if (value) for (const [table, rows] of Object.entries(value.rows)) this.set({ table: safeLabel(table) }, rows);
      },
    });
    new Gauge({
      name: 'legwork_retention_lag_seconds',
      help: 'Seconds the oldest row past its retention (RFQ history, account events) has been past it; 0 when the sweeps keep up',
      registers: [this.registry],
      async collect() {
        const value = await shared();
        if (value) this.set(value.lagSeconds);
      },
    });
  }

  /** The Prometheus text exposition of every series. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
