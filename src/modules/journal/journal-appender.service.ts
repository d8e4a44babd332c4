import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { parseWallet, receiptHash, takerCommitment, toHex } from '@legwork/protocol';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import type { Sql, Tx } from '../../common/database/sql';
import { PeriodicSweep } from '../../common/jobs/periodic-sweep';
import { logger } from '../../common/logging/logger';
import { MetricsService } from '../health/metrics.service';
import { linkReceipt } from './domain/chain';
import { GATHER, GatherPolicy } from './domain/gather';
import type { ReceiptView } from './domain/receipt';
import { ExchangeKeyService } from './exchange-key.service';
import { JournalRepository, type NewReceipt, type PendingReceipt } from './journal.repository';

/** Staged receipts chained per transaction at most: the head's hold grows with it (one signature each, about 60 µs). */
const BATCH = 200;
/** A staged receipt this old (seconds) is one nobody is waiting for (its instance died after its fill's COMMIT): the sweep chains it. */
const ORPHAN_SECONDS = 2;
/**
 * Under load (a run ended less than BUSY_MS ago) a run gathers before it reads: it waits until as
 * many fills have asked as GatherPolicy wants (enough to share the batch's commit, the head's
 * hold), at most GATHER.MAX_MS, and every ask made meanwhile joins it (PostgreSQL's commit_delay,
 * for the journal). An idle exchange chains at once.
 */
const BUSY_MS = 100;
/** Tries of a fill waiting for its receipt (a failed batch, a lost connection) before its `filled` event is left to replay. */
const TRIES = 5;

/** The receipts a run of the appender chained, by `${fill_id}/${kind}`. */
export type Chained = Map<string, ReceiptView>;

const keyOf = (fillId: string, kind: number) => `${fillId}/${kind}`;

type Linked = Array<{ fillId: string; kind: number; view: ReceiptView }>;

/** An optimistic batch's hold, to be observed: from its UPDATE of the head (the database's clock) to its commit. */
interface Hold {
  wait: number;
  receipts: number;
  lockedAtUs: number;
  /** The backend that ran the write: its move to idle is the commit's end. */
  pid: number;
  /** When the write's reply reached this process (later than the commit's end by this process's own delays). */
  replyUs: number;
}

/** The wall clock in µs (Date.now() has only ms): to compare with the database's clock_timestamp() on the same host. */
const wallMicros = () => (performance.timeOrigin + performance.now()) * 1000;

/**
 * The appender (docs/receipts.md, "How it is written"): chains staged receipts into the journal,
 * in batches, one batch at a time per database (the journal head's row lock, held for the batch's
 * own transaction: two statements, the signatures and the COMMIT). Fills and reverts stage their
 * receipt in their own transaction and ask for it after their COMMIT (`receiptOf`): every ask
 * made while a batch runs is answered by the next one, so under load one batch serves many fills.
 * A sweep on every instance chains what nobody asked for (a fill whose instance died after its
 * COMMIT).
 */
@Injectable()
export class JournalAppender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private running: Promise<Chained> | null = null;
  private queued: Promise<Chained> | null = null;
  /** The running run is still gathering (it has read nothing): an ask joins it. */
  private gathering = false;
  /** The asks the gathering run has, and what ends its gather early once they are enough. */
  private asks = 0;
  private enough: (() => void) | null = null;
  /** The asks the queued run has. */
  private queuedAsks = 0;
  private readonly policy = new GatherPolicy();
  /** When the last run ended (performance.now()): a recent one means load, and the next run gathers. */
  private lastEndedAt = -Infinity;
  /** The last run's hold being read from pg_stat_activity (after its askers were answered). */
  private measuring: Promise<void> = Promise.resolve();
  private readonly periodic: PeriodicSweep;

  constructor(
    private readonly db: Database,
    private readonly journal: JournalRepository,
    private readonly key: ExchangeKeyService,
    private readonly metrics: MetricsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.periodic = new PeriodicSweep('journal sweep', config.sweepIntervalMs, () => this.sweepOnce());
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const started = Date.now();
    await this.periodic.stop();
    await Promise.allSettled([this.running, this.queued]);
    await this.measuring;
    logger.event('info', 'shutdown: journal appender stopped', { ms: Date.now() - started }, 'Journal');
  }

  /**
   * Chains every receipt staged (committed) before this call, with whatever else is staged by
   * then: a run starts now, or right after the one running (which may have read the staged rows
   * before the caller's COMMIT). The receipts the run chained; rows another instance chained first
   * are not in it.
   */
  flush(): Promise<Chained> {
    if (this.queued) {
      this.queuedAsks++;
      return this.queued;
    }
    if (this.running && this.gathering) {
      if (++this.asks >= this.policy.asks) this.enough?.();
      return this.running;
    }
    if (!this.running) return this.start(1);
    this.queuedAsks = 1;
    this.queued = this.running.then(
      () => this.start(this.queuedAsks),
      () => this.start(this.queuedAsks),
    );
    return this.queued;
  }

  /** The receipt of a staged fill (kind 0) or revert (1) once it is chained, here or by another instance. */
  async receiptOf(fillId: string, kind: 0 | 1): Promise<ReceiptView> {
    for (let attempt = 1; ; attempt++) {
      try {
        const chained = (await this.flush()).get(keyOf(fillId, kind));
        if (chained) return chained;
        const stored = (await this.journal.receiptsOf([fillId])).get(fillId);
        const receipt = kind === 0 ? stored?.fill : stored?.revert;
        if (receipt) return receipt;
        throw new Error(`the receipt of fill ${fillId} (kind ${kind}) is neither staged nor chained`);
      } catch (error) {
        if (attempt >= TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
      }
    }
  }

  /** A run for `asks` asks: under load it gathers until the policy's count of asks (or GATHER.MAX_MS), else it reads at once. */
  private start(asks: number): Promise<Chained> {
    const gather = performance.now() - this.lastEndedAt < BUSY_MS && asks < this.policy.asks;
    this.gathering = gather;
    this.asks = asks;
    const chained = gather ? this.gathered().then(() => this.chainAll()) : this.chainAll();
    const run = chained.finally(() => {
      this.lastEndedAt = performance.now();
      if (this.running === run) this.running = null;
    });
    this.queued = null;
    this.running = run;
    return run;
  }

  /**
   * The gather: ends when the asks are enough, after GATHER.MAX_MS, or at once when stopping (the
   * sweep's rest), so a shutdown chains at once.
   */
  private async gathered(): Promise<void> {
    await Promise.race([this.periodic.rest(GATHER.MAX_MS), new Promise<void>((resolve) => (this.enough = resolve))]);
    this.gathering = false;
    this.enough = null;
  }

  /**
   * Batches until none is full: every row staged before the first one began is chained. On one
   * held session, so that after the askers are answered the last batch's commit end can be read
   * where its backend went idle (`measure`); the next run meanwhile takes another connection.
   */
  private chainAll(): Promise<Chained> {
    let answer!: (chained: Chained) => void;
    const answered = new Promise<Chained>((resolve) => (answer = resolve));
    const run = this.db.session(async (session) => {
      const chained: Chained = new Map();
      for (;;) {
        // Optimistic first (two statements, no transaction); if another instance's batch moved the
        // head in between, the same batch under the head's lock.
        const { linked, hold } = await this.chainBatch(session).catch(() => this.db.tx((tx) => this.chainBatch(tx, tx)));
        for (const r of linked) chained.set(keyOf(r.fillId, r.kind), r.view);
        if (linked.length < BATCH) {
          answer(chained);
          if (hold) await (this.measuring = this.measure(hold, true));
          return;
        }
        // The session moves on to the next batch: this one's hold ends at its reply here.
        if (hold) await this.measure(hold, false);
      }
    });
    return Promise.race([answered, run.then(() => answered)]);
  }

  /**
   * Observes an optimistic batch's hold (legwork_journal_head_hold_seconds, bench figure F14): the
   * head's row is released at the write's commit, which ends where its backend went idle, before
   * its reply; when that cannot be read (PGlite, or the session moved on), at the reply's arrival.
   */
  private async measure(h: Hold, exact: boolean): Promise<void> {
    const idleUs = exact && !this.db.embedded ? await this.journal.idleSince(h.pid).catch(() => null) : null;
    const endUs = idleUs !== null && idleUs >= h.lockedAtUs && idleUs <= h.replyUs ? idleUs : h.replyUs;
    const holdUs = Math.max(0, endUs - h.lockedAtUs);
    this.policy.observeHold(holdUs / 1000);
    this.metrics.journalHead(h.wait, holdUs / 1e6, h.receipts);
  }

  /**
   * One batch: the head and the oldest staged rows, linked and signed in Node, then one statement
   * writes the receipts, deletes the staged rows and moves the head (JournalRepository.appendBatch),
   * taking the head's row lock only for itself. Without `tx`: the head and the rows read in one
   * statement without a lock; the write refuses itself if the head moved meanwhile; its hold (from
   * the write's UPDATE of the head to its commit) is answered for the caller to observe. With `tx`:
   * the head locked first (FOR UPDATE), held to the COMMIT, observed from the lock statement to the
   * COMMIT's reply. Either is shared among the batch's receipts in /metrics.
   */
  private async chainBatch(sql: Sql, tx: Tx | null = null): Promise<{ linked: Linked; hold: Hold | null }> {
    const asked = process.hrtime.bigint();
    const { head, staged } = tx
      ? { head: await this.journal.lockHead(tx), staged: await this.journal.pending(tx, BATCH) }
      : await this.journal.headAndPending(BATCH, sql);
    if (staged.length === 0) return { linked: [], hold: null };
    const receipts = this.link(head, staged);
    const writing = process.hrtime.bigint();
    const { lockedAtUs, pid } = await this.journal.appendBatch(
      sql,
      head,
      receipts,
      staged.map((s) => s.id),
    );
    const replyUs = wallMicros();
    const wait = Number(writing - asked) / 1e9;
    if (tx) tx.afterCommit(() => this.metrics.journalHead(wait, Number(process.hrtime.bigint() - asked) / 1e9, staged.length));
    const linked = receipts.map((r) => ({
      fillId: r.fillId,
      kind: r.kind,
      view: { journal_seq: Number(r.journalSeq), kind: r.kind, payload: r.payload.toString('base64'), hash: r.hash, key_id: r.keyId, signature: r.signature },
    }));
    return { linked, hold: tx ? null : { wait, receipts: staged.length, lockedAtUs, pid, replyUs } };
  }

  /** The staged receipts as the head's next links: the taker's commitment, journal_seq and prev_hash written in, hashed and signed. */
  private link(head: { journalSeq: bigint; hash: string }, staged: readonly PendingReceipt[]): NewReceipt[] {
    const receipts: NewReceipt[] = [];
    let prev = head.hash;
    for (const [i, s] of staged.entries()) {
      const journalSeq = head.journalSeq + BigInt(i + 1);
      const payload = linkReceipt(s.body, journalSeq, Buffer.from(prev, 'hex'), takerCommitment(s.takerSalt, parseWallet(s.takerWallet)));
      const hash = toHex(receiptHash(payload));
      const signature = this.key.sign(payload).toString('base64');
      receipts.push({ journalSeq, kind: s.kind, fillId: s.fillId, payload, hash, prevHash: prev, keyId: this.key.keyId, signature, at: s.at });
      prev = hash;
    }
    return receipts;
  }

  /**
   * Chains every staged receipt on `sql`, a session the caller holds with nothing else running on
   * it (the embedded backup's: PGlite's one session), so no other batch can interleave.
   */
  async chainOn(sql: Sql): Promise<number> {
    let chained = 0;
    for (;;) {
      const { linked, hold } = await this.chainBatch(sql);
      if (hold) await this.measure(hold, false);
      chained += linked.length;
      if (linked.length < BATCH) return chained;
    }
  }

  /** Chains staged receipts nobody waits for (their fill's instance died between its COMMIT and its ask). */
  private async sweepOnce(): Promise<void> {
    const oldest = await this.journal.oldestPendingAt();
    if (oldest === null || oldest > this.clock.now() - ORPHAN_SECONDS) return;
    const chained = await this.flush();
    if (chained.size > 0) logger.event('warn', 'staged receipts chained by the sweep', { receipts: chained.size }, 'Journal');
  }
}
