import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Sql } from '../../common/database/sql';
import type { CheckedQuote, CompetitionPort, CompetitiveQuotesQuery, DeclineResult, KeptCompetitiveQuote, RespondResult } from '../rfq/competition-port';
import { CompetitionHooks } from '../rfq/competition-port';
import type { DeclineCommand, RespondCommand } from '../rfq/domain/rfq-params';
import type { RfqRecord } from '../rfq/domain/rfq-record';
import type { MakerLimitsRow } from '../maker-limits/maker-limits-row';
import { RfqTransitionsService } from '../rfq/rfq-transitions.service';
import type { RfqCaller } from '../rfq/rfq.service';
import { CompetitionCloseService } from './competition-close.service';
import { CompetitionRepository, MAKER_VERSION_SQL } from './competition.repository';
import { MakerQuotesService } from './maker-quotes.service';

/**
 * Competitive RFQs as `rfq` sees them (its CompetitionPort, registered on CompetitionHooks): the
 * maker's respond and decline (MakerQuotesService), the taker's cancel, the end when the round
 * settles, and the reads of live quotes. Each end runs in one transaction that holds the RFQ's row.
 */
@Injectable()
export class CompetitionService implements CompetitionPort, OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly quotes: CompetitionRepository,
    private readonly close: CompetitionCloseService,
    private readonly transitions: RfqTransitionsService,
    private readonly writes: MakerQuotesService,
    private readonly hooks: CompetitionHooks,
  ) {}

  onModuleInit(): void {
    this.hooks.use(this);
  }

  respond(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult> {
    return this.writes.respond(maker, command, checked);
  }

  respondKnown(
    maker: RfqCaller,
    command: RespondCommand,
    check: (found: { rfq: RfqRecord; limits: MakerLimitsRow | null }) => Promise<CheckedQuote>,
  ): Promise<RespondResult | null> {
    return this.writes.respondKnown(maker, command, check);
  }

  decline(maker: RfqCaller, command: DeclineCommand, rfq: RfqRecord): Promise<DeclineResult> {
    return this.writes.decline(maker, command, rfq);
  }

  /**
   * rfq.cancel of a competitive RFQ: pending or quoted → expired with cancelled_at, its live quotes
   * ended `expired` (their makers told), the panel's other makers `closed`, the transcript
   * written: one transaction. null when it was in neither state.
   */
  async cancel(taker: RfqCaller, rfq: RfqRecord): Promise<RfqRecord | null> {
    const nowMs = this.clock.nowMs();
    return this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfq.id);
      if (!locked || locked.accountId !== taker.accountId || (locked.state !== 'pending' && locked.state !== 'quoted')) return null;
      const live = await this.quotes.liveOf([rfq.id], tx);
      const ended = await this.quotes.end(
        tx,
        live.map((q) => q.quoteId),
        'expired',
        nowMs,
      );
      await this.close.tellEnded(tx, ended, 'expired', nowMs);
      const moved = await this.transitions.cancelCompetitive(tx, taker.accountId, rfq.id, Math.floor(nowMs / 1000), locked.state);
      if (!moved) return null;
      if (locked.state === 'quoted') this.close.closeFor(tx, moved, new Set(ended.map((q) => q.makerAccountId)));
      await this.close.writeTranscript(tx, moved, nowMs, null);
      return moved;
    });
  }

  /**
   * A competitive RFQ still pending or quoted when its round settles: its live quotes end
   * `expired` (their makers told), it moves to expired, the panel's others hear `closed`, and the
   * transcript is written, in one transaction. null when it was in neither state.
   */
  async expireNow(rfqId: string): Promise<RfqRecord | null> {
    const nowMs = this.clock.nowMs();
    return this.db.tx(async (tx) => {
      const locked = await this.transitions.lock(tx, rfqId);
      if (!locked?.competition || (locked.state !== 'pending' && locked.state !== 'quoted')) return null;
      const live = await this.quotes.liveOf([rfqId], tx);
      const ended = await this.quotes.end(
        tx,
        live.map((q) => q.quoteId),
        'expired',
        nowMs,
      );
      await this.close.tellEnded(tx, ended, 'expired', nowMs);
      return this.close.end(tx, locked, nowMs, { to: 'expired' }, new Set(ended.map((q) => q.makerAccountId)));
    });
  }

  async withLiveQuotes(records: readonly RfqRecord[]): Promise<void> {
    const open = records.filter((r) => r.competition && (r.state === 'pending' || r.state === 'quoted'));
    if (open.length === 0) return;
    const live = await this.quotes.liveOf(open.map((r) => r.id));
    for (const r of open) r.liveQuotes = live.filter((q) => q.rfqId === r.id);
  }

  liveQuotes(accountId: number, liveAfter: number, sql: Sql): Promise<Array<{ id: string; expiresAt: number }>> {
    return this.quotes.makerLive(accountId, liveAfter, sql);
  }

  quote(quoteId: string): Promise<KeptCompetitiveQuote | null> {
    return this.quotes.find(quoteId);
  }

  makerQuotes(query: CompetitiveQuotesQuery): Promise<KeptCompetitiveQuote[]> {
    return this.quotes.makerPage(query);
  }

  version(accountId: number, sql: Sql): Promise<string> {
    return this.quotes.makerVersion(accountId, sql);
  }

  readonly versionSql = MAKER_VERSION_SQL;
}
