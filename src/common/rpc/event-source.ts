import type { Channel } from '../broadcast/notifier';

/** One stored or live account event: its number, its channel and its `params.data` (without `seq`). */
export interface StreamEvent {
  accountSeq: number;
  channel: Channel;
  data: Record<string, unknown>;
}

/** Where a stream reads one account's stored events (docs/spec/design.md 13). */
export interface EventSource {
  /** The latest account_seq (0: none yet) and the oldest still stored (null: none stored). */
  bounds(): Promise<{ latest: number; oldest: number | null }>;
  /** Stored events with after < account_seq <= upTo, in order, at most `limit`. */
  range(after: number, upTo: number, limit: number): Promise<StreamEvent[]>;
}
