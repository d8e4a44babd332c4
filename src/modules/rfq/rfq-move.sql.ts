import { type MakerLimitsRow, limitsRowHeldSql } from '../maker-limits/maker-limits-row';
import type { AcceptRow } from './rfq-move';

/**
 * A row written in a move's own statement, only when the RFQ moves (it reads the moved row).
 * `guarded`: the nonce's, only while the maker's quotes and limits are those a respond's checks
 * decided on (see companionSql).
 */
export type Companion =
  | { kind: 'none' }
  | { kind: 'nonce'; makerAccountId: number; nonce: bigint }
  | { kind: 'guarded'; makerAccountId: number; nonce: bigint; highWater: bigint | null; limits: MakerLimitsRow }
  | { kind: 'accept'; accept: AcceptRow };

/** Why a quote's move refuses itself: the nonce high-water mark did not rise. */
const NONCE_NOT_ABOVE = 'quote nonce not above the high-water mark';
/** Why a guarded quote's move refuses itself: another quote of the maker came in since its checks. */
export const QUOTES_CHANGED = "the maker's quotes changed since the checks";

/**
 * The companion write of a move (a CTE reading `moved`), the select-list column that refuses the
 * statement without it, and what the move itself waits for: `before`, CTEs ahead of `moved`, and
 * `condition`, a one-time filter of the UPDATE (evaluated once, before the RFQ's row is scanned).
 */
export function companionSql(
  companion: Companion,
  param: (value: unknown) => string,
): { before: string; condition: string | null; cte: string; refuse: string } {
  switch (companion.kind) {
    case 'none':
      return { before: '', condition: null, cte: '', refuse: '' };
    case 'nonce':
      // The maker's quote-nonce high-water mark rises to the quote's nonce if it is above it
      // (durable: the mark survives restarts and Redis); without a rise the move is refused.
      return { before: '', condition: null, ...nonceRise(param, companion, 'maker_nonces.high_water < EXCLUDED.high_water', NONCE_NOT_ABOVE) };
    case 'guarded':
      // A respond under limits on what is out, decided without a transaction (docs/rfq.md,
      // "Respond on known quotes"): the maker's limits row is locked first, as the transaction's
      // first statement would (the one-time filter runs before the RFQ's row is scanned), and only
      // while it is the row the checks read; the nonce rises only from the mark the checks' quotes
      // were known at, so no quote of the maker came in meanwhile. Either changed: nothing moves,
      // or the statement refuses itself, and the caller decides in the transaction.
      return {
        before: `held AS MATERIALIZED (${limitsRowHeldSql(param, companion.makerAccountId, companion.limits)}), `,
        condition: 'EXISTS (SELECT 1 FROM held)',
        ...nonceRise(
          param,
          companion,
          companion.highWater === null ? 'false' : `maker_nonces.high_water = ${param(companion.highWater.toString())}::numeric`,
          QUOTES_CHANGED,
        ),
      };
    case 'accept': {
      const a = companion.accept;
      return {
        before: '',
        condition: null,
        cte: `, accept AS (
            INSERT INTO accepts (rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at)
            SELECT id, ${param(a.quoteId)}, ${param(a.side)}, ${param(a.fee.toString())}, ${param(a.maxFee.toString())}, ${param(a.takerSignature)},
                   ${param(a.expiresAt)}, ${param(a.acceptedAt)} FROM moved)`,
        refuse: '',
      };
    }
  }
}

/**
 * A quote's nonce CTE: the maker's high-water mark set to the quote's nonce with the move (a first
 * quote inserts it) where `rises` holds of the row it replaces; the statement refuses itself with
 * `reason` when the mark did not move, so the move is undone with it.
 */
function nonceRise(
  param: (value: unknown) => string,
  quote: { makerAccountId: number; nonce: bigint },
  rises: string,
  reason: string,
): { cte: string; refuse: string } {
  return {
    cte: `, nonce AS (
            INSERT INTO maker_nonces (account_id, high_water) SELECT ${param(quote.makerAccountId)}, ${param(quote.nonce.toString())}::numeric FROM moved
            ON CONFLICT (account_id) DO UPDATE SET high_water = EXCLUDED.high_water
            WHERE ${rises}
            RETURNING high_water)`,
    refuse: `, CASE WHEN NOT EXISTS (SELECT 1 FROM nonce) THEN legwork_refuse(${param(reason)}) END AS refused`,
  };
}
