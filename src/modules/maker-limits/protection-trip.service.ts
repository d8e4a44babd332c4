import { Injectable } from '@nestjs/common';
import { Notifier } from '../../common/broadcast/notifier';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { logger } from '../../common/logging/logger';
import { AuditService } from '../audit/audit.service';
import { MarketDataService } from '../market-data/market-data.service';
import { type ProtectionTrip, protectionEventData } from './domain/protection-trip';
import { type QuoteExposure, protectionTrip, quoteExposure } from './domain/quote-exposure';
import type { FilledRfq } from './domain/quoted-rfq';
import { LimitsHooks } from './limits-hooks';
import { effectiveOf, isFrozen } from './maker-limits-row';
import { MakerLimitsRepository } from './maker-limits.repository';
import { recordTrip } from './maker-protection-audit';

/**
 * A maker's protection after its fills (docs/spec/design.md section 15): each fill of its quotes
 * joins its window, and a window past a threshold freezes it, tells it (an `rfq_maker` event,
 * numbered with its account events) and leaves an audit row (section 20).
 */
@Injectable()
export class ProtectionTripService {
  constructor(
    private readonly db: Database,
    private readonly rows: MakerLimitsRepository,
    private readonly hooks: LimitsHooks,
    private readonly market: MarketDataService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /**
   * After a fill of a maker's quote (the fill committed): for a maker with protection set, adds the
   * fill to its window and, when the window exceeds a threshold, freezes it, starts a new window and
   * tells it with an `rfq_maker` event `protection` (stored with its account_seq, so it replays).
   * Never throws: the fill stands whatever happens here (logged).
   */
  async afterFill(rfq: FilledRfq): Promise<void> {
    const maker = rfq.quote?.makerAccountId;
    if (maker === undefined || rfq.fill === null) return;
    try {
      // One keyed read for a maker without protection: the fill pays nothing more.
      const row = await this.rows.find(maker);
      if (!row || !effectiveOf(row).protection) return;
      await this.db.tx((tx) => this.protect(tx, maker, rfq));
    } catch (error) {
      logger.event('error', 'maker protection not updated after a fill', { rfq_id: rfq.id, maker_account_id: maker, error: String(error) }, 'Rfq');
    }
  }

  private async protect(tx: Tx, maker: number, rfq: FilledRfq): Promise<void> {
    const row = await this.rows.lock(tx, maker);
    const protection = row && effectiveOf(row).protection;
    if (!protection) return;
    const now = rfq.fill!.filledAt;
    const exposure = this.exposureAtLatest(rfq, now);
    const abs = exposure.delta < 0n ? -exposure.delta : exposure.delta;
    const window = await this.rows.addFill(
      tx,
      maker,
      { rfqId: rfq.id, filledAt: now, asset: rfq.asset, notional: exposure.notional, delta: abs },
      now - protection.windowSeconds,
    );
    const reason = protectionTrip(protection, window);
    if (!reason || isFrozen(row, this.clock.nowMs())) return;
    const trip: ProtectionTrip = { tripped_at: now, until: protection.frozenSeconds === 0 ? null : now + protection.frozenSeconds, reason };
    await this.rows.trip(tx, maker, now, trip.until, reason);
    const accountSeq = await this.hooks.appendProtection(tx, maker, trip);
    logger.event('warn', 'maker protection tripped', { maker_account_id: maker, rfq_id: rfq.id, reason, until: trip.until }, 'Rfq');
    // Told once the trip commits; a lost event is logged there, and replays (stored with its account_seq).
    tx.afterCommit(() => this.notifier.notify({ channel: 'rfq_maker', accountId: maker, data: protectionEventData(trip, accountSeq) }));
    // Every trip is an audit row with the window's figures (docs/spec/design.md section 20).
    tx.afterCommit(() => void recordTrip(this.audit, maker, trip, window));
  }

  /** A filled quote's notional and delta at the latest data, fresh or not (a leg without data counts zero). */
  private exposureAtLatest(rfq: FilledRfq, now: number): QuoteExposure {
    const greeks = this.market.greeksAt(now);
    const index = this.market.index(rfq.asset)?.price ?? 0n;
    return quoteExposure(
      rfq.asset,
      rfq.legs.map((l) => ({ quantity: l.quantity, index, mark: 0n, delta: greeks.get(l.instrument)?.delta ?? 0n, vega: 0n })),
    );
  }
}
