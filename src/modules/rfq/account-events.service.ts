import { Injectable } from '@nestjs/common';
import { AccountEventRepository, type StoredEvent } from './account-event.repository';

export type { StoredEvent } from './account-event.repository';

/** The stored account events a subscription replays (docs/spec/design.md 13): its bounds and a range. */
@Injectable()
export class AccountEventsService {
  constructor(private readonly events: AccountEventRepository) {}

  /** The account's latest `account_seq` and its oldest stored one (null when none is stored). */
  bounds(accountId: number): Promise<{ latest: number; oldest: number | null }> {
    return this.events.bounds(accountId);
  }

  /** Stored events of the account with `after < account_seq <= upTo`, in order, at most `limit`. */
  range(accountId: number, after: number, upTo: number, limit: number): Promise<StoredEvent[]> {
    return this.events.range(accountId, after, upTo, limit);
  }
}
