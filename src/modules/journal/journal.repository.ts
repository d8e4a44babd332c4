import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { type Maybe, type Row, type RowOf, columnList } from '../../common/database/table';
import type { ReceiptKind } from '@legwork/protocol';
import type { ReceiptView } from './domain/receipt';

export interface JournalRow {
  journal_seq: number;
  kind: ReceiptKind;
  hash: string;
  prev_hash: string;
  at: number;
}

/** A receipt as the journal writes it. */
interface NewReceipt {
  journalSeq: bigint;
  kind: ReceiptKind;
  fillId: string;
  payload: Buffer;
  hash: string;
  prevHash: string;
  keyId: string;
  signature: string;
  at: number;
}

/** A fill's fee, credited to the fee account's balance as the head is locked (`lockHead`). */
export interface FeeCredit {
  accountId: number;
  amount: bigint;
}

type HeadRow = Row<'journal_head', 'journal_seq' | 'hash'> & { taker: string };
/** The head row with the taker's wallet ($1: the taker's account), as lockHead reads it with or without a fee credit. */
const SELECT_HEAD = `SELECT h.journal_seq, h.hash, (SELECT wallet FROM accounts WHERE id = $1) AS taker FROM journal_head h`;

const RECEIPT = columnList('receipts', ['journal_seq', 'kind', 'fill_id', 'payload', 'hash', 'key_id', 'signature']);
type ReceiptRow = RowOf<typeof RECEIPT>;

function receiptView(r: ReceiptRow): ReceiptView {
  return {
    journal_seq: Number(r.journal_seq),
    kind: Number(r.kind) as ReceiptKind,
    payload: r.payload.toString('base64'),
    hash: r.hash,
    key_id: r.key_id,
    signature: r.signature,
  };
}

/** The receipt journal's tables (docs/spec/design.md 14): receipts, the chain's head journal_head, and exchange_keys. */
@Injectable()
export class JournalRepository {
  constructor(private readonly db: Database) {}

  /**
   * Locks the head row in the caller's transaction (every other append waits from here until it
   * ends) and answers it, with the taker's wallet read in the same round trip (the receipt names
   * it; `accounts.wallet` is the accounts module's, read here to keep the head's hold one round
   * trip shorter).
   *
   * With `feeCredit` (a fill), the same statement first credits the fee account's balance row, the
   * ledger's, which every fill writes and holds to COMMIT like the head: one round trip less while
   * fills wait for each other (bench/results/performance.md, F5). The lock order stays the fee account's row,
   * then the head (revert.service.ts): the CTE's row locks the fee account's row before the join
   * can give the head row to FOR UPDATE.
   */
  async lockHead(tx: Tx, takerAccountId: number, feeCredit?: FeeCredit): Promise<{ journalSeq: bigint; hash: string; takerWallet: string }> {
    const head = feeCredit
      ? await tx.one<HeadRow>(
          `WITH fee AS (
             INSERT INTO balances (account_id, total) VALUES ($2, $3)
             ON CONFLICT (account_id) DO UPDATE SET total = balances.total + EXCLUDED.total, updated_at = now()
             RETURNING account_id
           )
           ${SELECT_HEAD}, fee WHERE h.id = 1 FOR UPDATE OF h`,
          [takerAccountId, feeCredit.accountId, feeCredit.amount.toString()],
        )
      : await tx.one<HeadRow>(`${SELECT_HEAD} WHERE h.id = 1 FOR UPDATE`, [takerAccountId]);
    if (!head) throw new Error('journal_head has no row');
    return { journalSeq: BigInt(head.journal_seq), hash: head.hash, takerWallet: head.taker };
  }

  /**
   * Writes the receipt and moves the head to it: one statement, under the head's lock (`lockHead`).
   * The receipt is written only as the head's next link (its journal_seq follows the head's, its
   * prev_hash is the head's hash), so no code path can write a broken chain; a receipt that is not
   * the next link throws and the fill's transaction rolls back.
   */
  async appendReceipt(tx: Tx, r: NewReceipt): Promise<void> {
    const moved = await tx.exec(
      `WITH receipt AS (
         INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM journal_head h
          WHERE h.id = 1 AND h.journal_seq = $1::bigint - 1 AND h.hash = $6
         RETURNING journal_seq
       )
       UPDATE journal_head SET journal_seq = $1, hash = $5 WHERE id = 1 AND EXISTS (SELECT 1 FROM receipt)`,
      [r.journalSeq.toString(), r.kind, r.fillId, r.payload, r.hash, r.prevHash, r.keyId, r.signature, r.at],
    );
    if (moved !== 1) throw new Error(`receipt ${r.journalSeq} is not the next link of the journal head`);
  }

  /** Receipts by fill id: `fill` and `revert` (when reverted). One read for a page of fills. */
  async receiptsOf(fillIds: readonly string[]): Promise<Map<string, { fill?: ReceiptView; revert?: ReceiptView }>> {
    const out = new Map<string, { fill?: ReceiptView; revert?: ReceiptView }>();
    if (fillIds.length === 0) return out;
    const rows = await this.db.rows<ReceiptRow>(`SELECT ${RECEIPT.sql} FROM receipts WHERE fill_id = ANY($1::bigint[])`, [fillIds]);
    for (const row of rows) {
      const entry = out.get(String(row.fill_id)) ?? {};
      if (Number(row.kind) === 0) entry.fill = receiptView(row);
      else entry.revert = receiptView(row);
      out.set(String(row.fill_id), entry);
    }
    return out;
  }

  /** The chain after `after`, at most `limit` rows, and the head. */
  async segment(after: number, limit: number): Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }> {
    // The head's columns, and a receipt's or (past the head) nulls.
    type Link = Row<'receipts', 'journal_seq' | 'kind' | 'hash' | 'prev_hash' | 'at'>;
    const rows = await this.db.rows<Maybe<Link> & { head_seq: string; head_hash: string }>(
      `SELECT r.journal_seq, r.kind, r.hash, r.prev_hash, r.at, h.journal_seq AS head_seq, h.hash AS head_hash
         FROM journal_head h LEFT JOIN LATERAL (SELECT * FROM receipts WHERE journal_seq > $1 ORDER BY journal_seq LIMIT $2) r ON true
        WHERE h.id = 1`,
      [after, limit],
    );
    const head = { journal_seq: Number(rows[0].head_seq), hash: rows[0].head_hash };
    return {
      rows: rows
        .filter((r): r is Link & { head_seq: string; head_hash: string } => r.journal_seq !== null)
        .map((r) => ({ journal_seq: Number(r.journal_seq), kind: Number(r.kind) as ReceiptKind, hash: r.hash, prev_hash: r.prev_hash, at: Number(r.at) })),
      head,
    };
  }

  async keys(): Promise<Array<{ key_id: string; public_key: string; from: number }>> {
    const rows = await this.db.rows<Row<'exchange_keys'>>(`SELECT key_id, public_key, from_at FROM exchange_keys ORDER BY from_at, key_id`);
    return rows.map((r) => ({ key_id: r.key_id, public_key: r.public_key, from: Number(r.from_at) }));
  }

  /** Lists a key (once: a key that ever signed stays listed after rotation). */
  async registerKey(keyId: string, publicKey: string, fromAt: number): Promise<void> {
    await this.db.exec(`INSERT INTO exchange_keys (key_id, public_key, from_at) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO NOTHING`, [
      keyId,
      publicKey,
      fromAt,
    ]);
  }
}
