import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../common/database/sql';
import type { ProtectionTrip } from './domain/protection-trip';

/**
 * What the limits ask of competitive quotes (docs/spec/design.md 18): they count as live quotes.
 * The competition module, above this one, provides it through the rfq module's CompetitionHooks.
 */
export interface CompetitiveUsage {
  /** A maker's live competitive quotes (their RFQ ids and expires_at) live after `liveAfter` (unix seconds). */
  liveQuotes(accountId: number, liveAfter: number, sql: Sql): Promise<Array<{ id: string; expiresAt: number }>>;
  /** The version of a maker's competitive quotes that no event to it moves (cancels, declines): text, '' when none. */
  version(accountId: number, sql: Sql | Tx): Promise<string>;
  /**
   * The same version as a scalar subquery on `$1` (the maker's account id), text, NULL when none:
   * get_limits reads it in the statement that reads the limits row (one round trip, not three).
   */
  readonly versionSql: string;
}

/** Stores a protection trip as the maker's next numbered `rfq_maker` event, in the trip's transaction; its account_seq. */
export type AppendProtectionEvent = (tx: Tx, accountId: number, trip: ProtectionTrip) => Promise<number>;

/**
 * The registrations of the modules above that the limits ask without importing them: the usage of
 * competitive quotes (null until registered: a seed-only app), and the account events where a
 * protection trip is numbered (the rfq module's `account_events`).
 */
@Injectable()
export class LimitsHooks {
  private competitive: CompetitiveUsage | null = null;
  private appendEvent: AppendProtectionEvent | null = null;

  useCompetition(usage: CompetitiveUsage): void {
    this.competitive = usage;
  }

  useEvents(append: AppendProtectionEvent): void {
    this.appendEvent = append;
  }

  get competition(): CompetitiveUsage | null {
    return this.competitive;
  }

  appendProtection(tx: Tx, accountId: number, trip: ProtectionTrip): Promise<number> {
    if (!this.appendEvent) throw new Error('maker protection events need the rfq module');
    return this.appendEvent(tx, accountId, trip);
  }
}
