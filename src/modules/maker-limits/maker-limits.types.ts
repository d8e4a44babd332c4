import type { UsageMarks } from './domain/open-usage';
import type { OpenUsage } from './domain/quote-exposure';
import type { MakerLimitsRow, QuotesVersion } from './maker-limits.repository';

/** Types of MakerLimitsService (docs/spec/design.md section 15). */

/** rfq.maker.get_limits (and the admin GET without `account_id`). */
export interface LimitsView {
  limits: Record<string, unknown>;
  admin_limits: Record<string, unknown>;
  usage: { open_quotes: number; open_notional: string; open_delta: Record<string, string>; open_vega: Record<string, string> };
  protection: { frozen: boolean; until: number | null; window: { fills: number; notional: string; delta: Record<string, string> } };
}

/** A maker's quotes as this instance last read them: id → quote_expires_at, exact at `version` for any time from `after`. */
export interface KnownQuotes {
  version: QuotesVersion;
  after: number;
  quotes: Map<string, number>;
  /** Their usage at version `key`, live after `after`, at `marks`. */
  sums?: { key: string; after: number; marks: UsageMarks; usage: OpenUsage };
}

/** What checkLocked saw: the maker and the version of its quotes (null: no check on what is out). */
export type SeenQuotes = { accountId: number; version: QuotesVersion } | null;

/** A limits row locked for a respond, and the version of the maker's quotes read with it (null: not read). */
export type LockedLimits = { row: MakerLimitsRow | null; version: QuotesVersion | null };

/**
 * A respond's limits passed on the maker's quotes as known here (MakerLimitsService.checkKnown):
 * it holds only while the maker's limits row is still `limits` and its nonce high-water mark still
 * `highWater` (null: it never quoted), which the respond's move checks as it moves.
 */
export interface KnownCheck {
  highWater: bigint | null;
  limits: MakerLimitsRow;
  seen: NonNullable<SeenQuotes>;
}
