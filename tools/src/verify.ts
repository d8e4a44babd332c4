import { type ExchangeKeyInfo, type JournalCheck, type LegworkHttp, type RfqFillRow, verifyJournalSegment, verifyReceipt } from '@legwork/sdk';

/**
 * The verification commands of the CLI (docs/spec/design.md 14, docs/receipts.md): a server's whole journal,
 * and an account's fills against their receipts. Nothing here trusts the server beyond the keys
 * it publishes: links and signatures are checked on this side.
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

/** Each fill's receipt (and revert receipt) checked against the fill row: 'verified' or why not. */
export function receiptStatus(row: RfqFillRow, keys: readonly ExchangeKeyInfo[]): string {
  if (!row.receipt) return 'no receipt';
  try {
    verifyReceipt(row.receipt, { keys, fill: { ...row, filled_at: Number(row.filled_at), legs: row.legs } });
    if (row.reverted) {
      if (!row.revert_receipt) return 'fill verified; revert receipt missing';
      verifyReceipt(row.revert_receipt, { keys, fill: { ...row, filled_at: Number(row.filled_at), legs: row.legs } });
      return `verified #${row.receipt.journal_seq}, revert #${row.revert_receipt.journal_seq}`;
    }
    return `verified #${row.receipt.journal_seq}`;
  } catch (error) {
    return `NOT VERIFIED: ${(error as Error).message}`;
  }
}
