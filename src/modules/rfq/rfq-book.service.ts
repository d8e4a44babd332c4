import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RfqError } from '../../common/errors/app-error';
import type { RfqCaller } from '../../common/rpc/rfq-caller';
import { JournalService } from '../journal/journal.service';
import { CompetitionHooks } from './competition-port';
import type { ListRfqsQuery, PollQuery } from './domain/rfq-params';
import { type OpenRfqView, type RfqView, openRfqView, rfqView } from './domain/rfq-view';
import { RfqRepository } from './rfq.repository';

/** Reading RFQs: rfq.get and rfq.list (the caller's, in the live book), rfq.maker.poll (the pending ones to quote). */
@Injectable()
export class RfqBookService {
  constructor(
    private readonly clock: Clock,
    private readonly store: RfqRepository,
    private readonly journal: JournalService,
    private readonly hooks: CompetitionHooks,
  ) {}

  /** The caller's RFQ in the live book, else RFQ_NOT_FOUND (another account's RFQ is never shown). */
  async get(caller: RfqCaller, rfqId: string): Promise<RfqView> {
    const rfq = await this.store.findLive(caller.accountId, rfqId, this.clock.now());
    if (!rfq) throw new RfqError('RFQ_NOT_FOUND', `no RFQ ${rfqId} of this account`);
    // A fill shows as filled once its receipt is chained too (docs/receipts.md): in the moment
    // between its COMMIT and its batch, this waits for the batch, so whoever sees `filled` can read the receipt.
    if (rfq.state === 'filled' && rfq.fill) await this.journal.chained(rfq.fill.fillId, 0);
    if (rfq.competition) await this.hooks.port.withLiveQuotes([rfq]);
    return rfqView(rfq);
  }

  async list(caller: RfqCaller, query: ListRfqsQuery): Promise<{ items: RfqView[]; next_cursor?: string }> {
    const found = await this.store.listLive(caller.accountId, query, this.clock.now());
    if (found.items.some((r) => r.competition)) await this.hooks.port.withLiveQuotes(found.items);
    return withCursor(found.items.map(rfqView), found.nextCursor);
  }

  async poll(caller: RfqCaller, query: PollQuery): Promise<{ items: OpenRfqView[]; next_cursor?: string }> {
    const found = await this.store.listPending(caller, query, this.clock.now());
    return withCursor(found.items.map(openRfqView), found.nextCursor);
  }
}

function withCursor<T>(items: T[], nextCursor: string | null): { items: T[]; next_cursor?: string } {
  return nextCursor ? { items, next_cursor: nextCursor } : { items };
}
