import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Database } from '../../common/database/database';
import { sqlRows } from '../../common/database/sql';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { InstrumentsService } from '../instruments/instruments.service';
import { maxQuoteExpiresAt } from './domain/quote-terms';
import { resolveLegs } from './domain/rfq-legs';
import type { CreateRfqCommand, ListRfqsQuery, PollQuery } from './domain/rfq-params';
import { type RfqRecord, sameLegs } from './domain/rfq-record';
import { type OpenRfqView, type RfqView, legsView, openRfqView, rfqView } from './domain/rfq-view';
import { OPEN_STATES } from './domain/rfq-state';
import { UuidV7Generator } from './domain/uuid-v7';
import { RfqExpiry } from './rfq-expiry';
import { RfqTransitions } from './rfq-transitions';
import { RFQ_COLUMNS, type RfqRow, RfqStore, toRfqRecord } from './rfq.store';

/** The caller of an rfq.* method: a signed-in account. */
export interface RfqCaller {
  accountId: number;
  wallet: string;
}

/** Opening RFQs and reading them: rfq.create, rfq.get, rfq.list, rfq.maker.poll. */
@Injectable()
export class RfqService {
  private readonly ids = new UuidV7Generator((size) => randomBytes(size));

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: RfqStore,
    private readonly instruments: InstrumentsService,
    private readonly expiry: RfqExpiry,
    private readonly transitions: RfqTransitions,
  ) {}

  /**
   * Idempotent by (taker, client_ref): the same legs in the same order give back the RFQ already
   * made, whatever its state (and whatever its legs are worth now); other legs are
   * RFQ_CANONICAL_MISMATCH. Concurrent identical calls make one RFQ: the taker's account row
   * serialises its creates, so the open count sees every earlier one, and the insert does nothing
   * on a conflict. Four round trips: BEGIN, the lock with the client_ref lookup, the counted
   * insert with its event row, COMMIT.
   */
  async create(taker: RfqCaller, command: CreateRfqCommand): Promise<RfqView> {
    const nowMs = this.clock.nowMs();
    const now = Math.floor(nowMs / 1000);
    let legs: ReturnType<typeof resolveLegs>;
    try {
      legs = resolveLegs(command.legs, (symbol) => this.instruments.get(symbol), now);
    } catch (error) {
      const existing = await this.store.findByClientRef(taker.accountId, command.clientRef);
      if (existing) return this.replay(existing, command);
      throw error;
    }
    const id = this.ids.next(nowMs);
    const expiresAt = now + this.config.rfqTtlSeconds;

    const outcome = await this.db.dataSource.transaction(async (m) => {
      const existing = await this.store.lockTakerWithClientRef(m, taker.accountId, command.clientRef);
      if (existing) return { rfq: existing, created: false };
      const [row] = await sqlRows<RfqRow & { open_rfqs: string }>(
        m,
        `WITH open AS (SELECT count(*) AS n FROM rfqs WHERE account_id = $2 AND state = ANY($10::text[])),
              inserted AS (
                INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at)
                SELECT $1, $2, $3, $4::jsonb, $5, $6, 'pending', $7, $7, $8, $9 WHERE (SELECT n FROM open) < $11
                ON CONFLICT (account_id, client_ref) DO NOTHING
                RETURNING ${RFQ_COLUMNS}),
              logged AS (INSERT INTO rfq_events (rfq_id, event, state, at) SELECT id, 'created', 'pending', $7 FROM inserted)
         SELECT (SELECT n FROM open) AS open_rfqs, inserted.* FROM (SELECT 1) AS one LEFT JOIN inserted ON true`,
        [
          id, taker.accountId, command.clientRef, JSON.stringify(legsView(command)), legs.asset, legs.expiry, now, expiresAt,
          maxQuoteExpiresAt(now, legs.expiry), OPEN_STATES, this.config.maxOpenRfqs,
        ],
      );
      if (row.id !== null) return { rfq: toRfqRecord(row), created: true };
      // Not inserted: a create of this client_ref committed while this one waited for the lock, or the limit.
      const raced = await this.store.findByClientRef(taker.accountId, command.clientRef, m);
      if (raced) return { rfq: raced, created: false };
      const open = Number(row.open_rfqs);
      throw new RfqError('RFQ_OPEN_LIMIT', `at most ${this.config.maxOpenRfqs} open RFQs per taker; ${open} are open`);
    });
    if (!outcome.created) return this.replay(outcome.rfq, command);

    const rfq = outcome.rfq;
    logger.event('info', 'rfq created', { rfq_id: rfq.id, account_id: rfq.accountId, legs: rfq.legs.length }, 'Rfq');
    await this.expiry.schedule(rfq.expiresAt);
    await this.transitions.created(rfq);
    return rfqView(rfq);
  }

  private replay(existing: RfqRecord, command: CreateRfqCommand): RfqView {
    if (!sameLegs(existing.legs, command.legs)) {
      throw new RfqError('RFQ_CANONICAL_MISMATCH', `client_ref ${command.clientRef} was used for other legs (or the same legs in another order)`, { rfqId: existing.id });
    }
    return rfqView(existing);
  }

  /** The caller's RFQ in the live book, else RFQ_NOT_FOUND (another account's RFQ is never shown). */
  async get(caller: RfqCaller, rfqId: string): Promise<RfqView> {
    const rfq = await this.store.findLive(caller.accountId, rfqId, this.clock.now());
    if (!rfq) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId} of this account`);
    return rfqView(rfq);
  }

  async list(caller: RfqCaller, query: ListRfqsQuery): Promise<{ items: RfqView[]; next_cursor?: string }> {
    const found = await this.store.listLive(caller.accountId, query, this.clock.now());
    return withCursor(found.items.map(rfqView), found.nextCursor);
  }

  async poll(caller: RfqCaller, query: PollQuery): Promise<{ items: OpenRfqView[]; next_cursor?: string }> {
    const found = await this.store.listPending(caller.accountId, query, this.clock.now());
    return withCursor(found.items.map(openRfqView), found.nextCursor);
  }
}

function withCursor<T>(items: T[], nextCursor: string | null): { items: T[]; next_cursor?: string } {
  return nextCursor ? { items, next_cursor: nextCursor } : { items };
}
