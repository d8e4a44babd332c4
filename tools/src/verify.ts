import { type ExchangeKeyInfo, type JournalCheck, type LegworkHttp, type RfqFillRow, verifyJournalSegment, verifyReceipt } from '@legwork/sdk';

/**
 * The verification commands of the CLI (docs/spec/design.md 14 and 16, docs/receipts.md): a server's whole
 * journal, and an account's fills against their receipts (version 2, and version 1 receipts
 * signed before the taker's commitment). Nothing here trusts the server beyond the keys it
 * publishes: links and signatures are checked on this side. The journal's rows are the chain only
 * (hash, prev_hash), the same for both versions, so a journal that starts with version 1 receipts
 * walks as one that does not.
 */

export interface JournalWalk {
  check: JournalCheck;
  rows: number;
  /** The server's head when the walk ended (it may have moved on meanwhile). */
  serverHead: { journal_seq: number; hash: string };
}

/** Walks the journal page by page (1,000 rows) from journal_seq 1, checking every link. */
export async function walkJournal(http: LegworkHttp, pageSize = 1000): Promise<JournalWalk> {
  let after = { journal_seq: 0, hash: '0'.repeat(64) };
  let rows = 0;
  for (;;) {
    const page = await http.journal({ after: after.journal_seq, limit: pageSize });
    const check = verifyJournalSegment(page.rows, after);
    rows += page.rows.length;
    if (!check.ok) return { check, rows, serverHead: page.head };
    after = check.head;
    if (page.rows.length < pageSize) {
      // The chain must end at the head the server states (same number, same hash).
      if (page.head.journal_seq === after.journal_seq && page.head.hash !== after.hash) {
        return {
          check: { ok: false, journal_seq: after.journal_seq, problem: `the head's hash ${page.head.hash} is not the last row's ${after.hash}` },
          rows,
          serverHead: page.head,
        };
      }
      return { check: { ok: true, head: after }, rows, serverHead: page.head };
    }
  }
}

export function journalLines(walk: JournalWalk): string[] {
  if (walk.check.ok) return [`journal ok: ${walk.rows} receipts, head journal_seq ${walk.check.head.journal_seq} hash ${walk.check.head.hash}`];
  return [`journal BROKEN at journal_seq ${walk.check.journal_seq}: ${walk.check.problem}`];
}

/**
 * Each fill's receipt (and revert receipt) checked against the fill row: 'verified' or why not.
 * With `wallet` (the CLI's own, from its seed), a taker row's receipts must also be that wallet's:
 * the commitment of a version 2 receipt recomputed from its `taker_salt`, or the key a
 * version 1 receipt names (docs/spec/design.md 16, docs/receipts.md).
 */
export function receiptStatus(row: RfqFillRow, keys: readonly ExchangeKeyInfo[], wallet?: string): string {
  if (!row.receipt) return 'no receipt';
  const taker = row.role === 'taker' && wallet !== undefined ? wallet : undefined;
  const fill = { ...row, filled_at: Number(row.filled_at), legs: row.legs };
  const proven = taker === undefined ? '' : '; taker proven';
  try {
    verifyReceipt(row.receipt, { keys, fill, taker });
    if (row.reverted) {
      if (!row.revert_receipt) return 'fill verified; revert receipt missing';
      verifyReceipt(row.revert_receipt, { keys, fill, taker });
      return `verified #${row.receipt.journal_seq}, revert #${row.revert_receipt.journal_seq}${proven}`;
    }
    return `verified #${row.receipt.journal_seq}${proven}`;
  } catch (error) {
    return `NOT VERIFIED: ${(error as Error).message}`;
  }
}
