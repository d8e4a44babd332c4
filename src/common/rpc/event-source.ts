import type { Channel } from '../broadcast/notifier';
import type { JsonText } from './json-text';

/** One stored or live account event: its number, its channel and its `params.data` (without `seq`). */
export interface StreamEvent {
  accountSeq: number;
  channel: Channel;
  /** A `JsonText`: an object's text, as PostgreSQL rendered a replayed event (the rfq module's event-data.sql.ts), sent as it is, never parsed. */
  data: Record<string, unknown> | JsonText<Record<string, unknown>>;
}

/** Where a stream reads one account's stored events (docs/spec/design.md 13). */
export interface EventSource {
  /** The latest account_seq (0: none yet) and the oldest still stored (null: none stored). */
  bounds(): Promise<{ latest: number; oldest: number | null }>;
  /** Stored events with after < account_seq <= upTo, in order, at most `limit`. */
  range(after: number, upTo: number, limit: number): Promise<StreamEvent[]>;
  /**
   * Admits a replay of the account (docs/spec/design.md section 20): throws when the account has
   * too many running. Absent: replays are not governed (tests of the stream alone).
   */
  admit?(): Promise<ReplayTicket>;
}

/** One admitted replay: its budget, and its slot to give back. */
export interface ReplayTicket {
  /**
   * How many of `want` (>= 1) events may go out now; waits while the budgets are spent. 0 once the
   * ticket is released (a lease asked ahead by a replay that has ended).
   */
  grant(want: number): Promise<number>;
  release(): void;
}
