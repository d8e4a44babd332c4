import { Injectable, type OnModuleInit } from '@nestjs/common';
import { JournalService } from '../journal/journal.service';
import { LimitsHooks } from '../maker-limits/limits-hooks';
import { AccountEventRepository, type StoredEvent } from './account-event.repository';

export type { StoredEvent } from './account-event.repository';

/** The stored account events a subscription replays (docs/spec/design.md 13): its bounds and a range. */
@Injectable()
export class AccountEventsService implements OnModuleInit {
  constructor(
    private readonly events: AccountEventRepository,
    private readonly journal: JournalService,
    private readonly limits: LimitsHooks,
  ) {}

  /** A maker's protection trip is numbered with its other account events (the limits sit below this module). */
  onModuleInit(): void {
    this.limits.useEvents((tx, accountId, trip) => this.events.appendProtection(tx, accountId, trip));
  }

  /** The account's latest `account_seq` and its oldest stored one (null when none is stored). */
  bounds(accountId: number): Promise<{ latest: number; oldest: number | null }> {
    return this.events.bounds(accountId);
  }

  /**
   * Stored events of the account with `after < account_seq <= upTo`, in order, at most `limit`. A
   * `filled` event carries its receipt: one whose fill committed a moment ago may find it still
   * staged (docs/receipts.md), and then the appender is asked to chain it and the range is read again.
   */
  async range(accountId: number, after: number, upTo: number, limit: number): Promise<StoredEvent[]> {
    const page = await this.events.range(accountId, after, upTo, limit);
    if (!page.staged) return page.events;
    await this.journal.flush();
    return (await this.events.range(accountId, after, upTo, limit)).events;
  }
}
