import { type ExchangeKeyInfo, type FillToMatch, type JournalRow, type Receipt, verifyJournalSegment, verifyReceipt } from '@legwork/protocol';

/**
 * Receipts and the journal checked in the browser, trusting nothing the server says about them,
 * with the checks of `@legwork/protocol` (the SDK's and the tools', beside the exchange's encoder):
 * the layout, the hash, the signature under a published key whose id is its own, and that the
 * receipt is this fill's. The console does not know the service's name, so the domain is not
 * held to one: the key the same server publishes binds it.
 */

const ZERO_HASH = '0'.repeat(64);

/**
 * Checks a receipt of `fill` (kind 0: its fill receipt, 1: its revert receipt). With `taker` (the
 * wallet of a taker row) the receipt must be that taker's: version 1 names it, version 2 holds the
 * commitment that the taker's copy (with `taker_salt`) recomputes. null when it holds, else the
 * first thing that does not.
 */
export function checkReceipt(receipt: Receipt, keys: ExchangeKeyInfo[], fill: FillToMatch, kind: 0 | 1, taker?: string): string | null {
  try {
    const decoded = verifyReceipt(receipt, { keys, fill, taker, serviceName: null });
    return decoded.kind === kind ? null : `payload kind ${decoded.kind}, expected ${kind}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export interface JournalWalk {
  ok: boolean;
  checked: number;
  head: { journal_seq: number; hash: string };
  problem: string | null;
}

/**
 * Walks the journal from the start, a page at a time (`page(after)`), and checks its links:
 * journal_seq 1, 2, 3, … without a gap, the first prev_hash zero, each prev_hash the hash before
 * it, and the last hash the head's.
 */
export async function verifyJournal(
  page: (after: number) => Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }>,
): Promise<JournalWalk> {
  let last = { journal_seq: 0, hash: ZERO_HASH };
  let head: { journal_seq: number; hash: string };
  for (;;) {
    const segment = await page(last.journal_seq);
    head = segment.head;
    const check = verifyJournalSegment(segment.rows, last);
    if (!check.ok) return { ok: false, checked: check.journal_seq - 1, head, problem: check.problem };
    last = check.head;
    if (segment.rows.length === 0 || last.journal_seq >= head.journal_seq) break;
  }
  // The head may have moved on while we walked; what we walked must be on its chain.
  if (last.journal_seq === head.journal_seq && last.hash !== head.hash)
    return { ok: false, checked: last.journal_seq, head, problem: 'the last hash is not the head' };
  return { ok: true, checked: last.journal_seq, head, problem: null };
}
