import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import { type Sql, type Tx, refusalReason } from '../../common/database/sql';
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
export interface NewReceipt {
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

/** A fill's fee, credited to the fee account's balance in the statement that stages its receipt (`stage`). */
export interface FeeCredit {
  accountId: number;
  amount: bigint;
}

/** A receipt as its fill or revert stages it: the unlinked body (domain/chain.ts). */
export interface StagedReceipt {
  kind: ReceiptKind;
  fillId: string;
  body: Buffer;
  at: number;
}

/** A staged receipt as the appender reads it, with what its chaining needs: the taker's wallet and the fill's salt. */
export interface PendingReceipt extends StagedReceipt {
  id: string;
  takerWallet: string;
  takerSalt: Buffer;
}

type PendingRow = Row<'journal_pending', 'id' | 'kind' | 'fill_id' | 'body' | 'at'> & { wallet: string; taker_salt: Buffer };
const STAGE = `INSERT INTO journal_pending (kind, fill_id, body, at)`;
/** A staged receipt with the taker's wallet and the fill's salt (the commitment is made from them). */
const PENDING = `p.id, p.kind, p.fill_id, p.body, p.at, a.wallet, f.taker_salt
  FROM journal_pending p JOIN fills f ON f.id = p.fill_id JOIN accounts a ON a.id = f.taker_account_id`;

function pendingOf(r: PendingRow): PendingReceipt {
  return {
    id: String(r.id),
    kind: Number(r.kind) as ReceiptKind,
    fillId: String(r.fill_id),
    body: r.body,
    at: Number(r.at),
    takerWallet: r.wallet,
    takerSalt: r.taker_salt,
  };
}

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

/**
 * The receipt journal's tables (docs/spec/design.md 14): receipts, the chain's head journal_head,
 * the staged receipts journal_pending, and exchange_keys.
 */
@Injectable()
export class JournalRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stages a fill's or revert's receipt in its transaction (docs/receipts.md): no lock on the
   * journal head. With `feeCredit` (a fill), the same statement first credits the fee account's
   * balance row, the ledger's, which every fill writes and holds to COMMIT: one round trip less
   * while fills wait for each other on it (bench/results/performance.md, F5).
   */
  async stage(tx: Tx, r: StagedReceipt, feeCredit?: FeeCredit): Promise<void> {
    const staged = feeCredit
      ? await tx.exec(
          `WITH fee AS (
             INSERT INTO balances (account_id, total) VALUES ($5, $6)
             ON CONFLICT (account_id) DO UPDATE SET total = balances.total + EXCLUDED.total, updated_at = now()
             RETURNING account_id
           )
           ${STAGE} SELECT $1, $2, $3, $4 FROM fee`,
          [r.kind, r.fillId, r.body, r.at, feeCredit.accountId, feeCredit.amount.toString()],
        )
      : await tx.exec(`${STAGE} VALUES ($1, $2, $3, $4)`, [r.kind, r.fillId, r.body, r.at]);
    if (staged !== 1) throw new Error(`the receipt of fill ${r.fillId} was not staged`);
  }

  /** Locks the head row in the caller's transaction (the appender's batch: every other append waits from here to its end) and answers it. */
  async lockHead(tx: Tx): Promise<{ journalSeq: bigint; hash: string }> {
    const head = await tx.one<Row<'journal_head', 'journal_seq' | 'hash'>>(`SELECT journal_seq, hash FROM journal_head WHERE id = 1 FOR UPDATE`);
    if (!head) throw new Error('journal_head has no row');
    return { journalSeq: BigInt(head.journal_seq), hash: head.hash };
  }

  /**
   * The oldest `limit` staged receipts, in staging order, with the taker's wallet and the fill's
   * salt. After `lockHead`, in a statement of its own, so that it sees every row a batch before it
   * deleted (READ COMMITTED takes a new snapshot per statement).
   */
  async pending(tx: Tx, limit: number): Promise<PendingReceipt[]> {
    const rows = await tx.rows<PendingRow>(`SELECT ${PENDING} ORDER BY p.id LIMIT $1`, [limit]);
    return rows.map(pendingOf);
  }

  /**
   * The head and the oldest `limit` staged receipts as of one snapshot, without a lock (one
   * statement): what an optimistic batch links from. Its write (`appendBatch`) takes effect only
   * if the head is still this one.
   */
  async headAndPending(limit: number, sql: Sql = this.db): Promise<{ head: { journalSeq: bigint; hash: string }; staged: PendingReceipt[] }> {
    const rows = await sql.rows<Maybe<PendingRow> & { head_seq: string; head_hash: string }>(
      `SELECT h.journal_seq AS head_seq, h.hash AS head_hash, s.*
         FROM journal_head h LEFT JOIN LATERAL (SELECT ${PENDING} ORDER BY p.id LIMIT $1) s ON true
        WHERE h.id = 1`,
      [limit],
    );
    if (rows.length === 0) throw new Error('journal_head has no row');
    return {
      head: { journalSeq: BigInt(rows[0].head_seq), hash: rows[0].head_hash },
      staged: rows.filter((r): r is PendingRow & { head_seq: string; head_hash: string } => r.id !== null).map(pendingOf),
    };
  }

  /** Whether the receipt of a fill (kind 0) or revert (1) is staged, not yet chained (journal_pending_fill_id_kind_key). */
  async isStaged(fillId: string, kind: ReceiptKind): Promise<boolean> {
    return (await this.db.one(`SELECT 1 AS staged FROM journal_pending WHERE fill_id = $1 AND kind = $2`, [fillId, kind])) !== null;
  }

  /** When the oldest staged receipt was made (unix seconds), or null when none waits: what the appender's sweep looks at. */
  async oldestPendingAt(): Promise<number | null> {
    const row = await this.db.one<Row<'journal_pending', 'at'>>(`SELECT at FROM journal_pending ORDER BY id LIMIT 1`);
    return row ? Number(row.at) : null;
  }

  /**
   * Writes a batch of receipts, deletes the staged rows they chain (`pendingIds`) and moves the
   * head to the last: one statement (atomic on its own: the pool, or a transaction after
   * `lockHead`). Its UPDATE locks the head row, and a concurrent batch that linked from the same
   * head conflicts on `receipts_pkey` or finds the head moved. Written only as the
   * head's next links (the first names the head `head` as read, each next one the one before,
   * journal_seq one more each time), so no code path can write a broken chain; anything else
   * refuses itself (legwork_refuse: the statement writes nothing) and throws, the staged rows kept
   * for the next batch. Answers when its UPDATE took the head's row lock (the database's clock, unix
   * µs; the lock is held from then to the statement's commit) and the backend that ran it.
   */
  async appendBatch(
    sql: Sql,
    head: { journalSeq: bigint; hash: string },
    receipts: readonly NewReceipt[],
    pendingIds: readonly string[],
  ): Promise<{ lockedAtUs: number; pid: number }> {
    const hashes = receipts.map((r) => r.hash);
    const refused = sql.rows<{ locked_at_us: string; pid: number }>(
      `WITH b AS (
         SELECT g.i, $1::bigint + g.i AS journal_seq, ($2::smallint[])[g.i] AS kind, ($3::bigint[])[g.i] AS fill_id,
                substring($4::bytea FROM (g.i - 1) * 1072 + 1 FOR 1072) AS payload, ($5::text[])[g.i] AS hash,
                ($6::text[])[g.i] AS prev_hash, ($7::text[])[g.i] AS signature, ($8::bigint[])[g.i] AS at, ($11::bigint[])[g.i] AS claimed_seq
           FROM generate_series(1, cardinality($5::text[])) AS g(i)
       ), receipt AS (
         INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at)
         SELECT b.journal_seq, b.kind, b.fill_id, b.payload, b.hash, b.prev_hash, $9, b.signature, b.at
           FROM b JOIN journal_head h ON h.id = 1 AND h.journal_seq = $1::bigint AND h.hash = $10
          WHERE b.claimed_seq = b.journal_seq AND b.prev_hash = COALESCE(($5::text[])[b.i - 1], $10)
         RETURNING journal_seq
       ), staged AS (
         DELETE FROM journal_pending WHERE id = ANY($12::bigint[]) RETURNING id
       ), moved AS (
         UPDATE journal_head SET journal_seq = $1::bigint + cardinality($5::text[]), hash = ($5::text[])[cardinality($5::text[])]
          WHERE id = 1 AND journal_seq = $1::bigint AND cardinality($5::text[]) > 0
            AND (SELECT count(*) FROM receipt) = cardinality($5::text[]) AND (SELECT count(*) FROM staged) = cardinality($12::bigint[])
         RETURNING clock_timestamp() AS locked_at
       )
       SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM moved) THEN legwork_refuse('not the next link') END AS refused,
              (SELECT (extract(epoch FROM locked_at) * 1e6)::bigint::text FROM moved) AS locked_at_us, pg_backend_pid() AS pid`,
      [
        head.journalSeq.toString(),
        receipts.map((r) => r.kind),
        receipts.map((r) => r.fillId),
        Buffer.concat(receipts.map((r) => r.payload)),
        hashes,
        receipts.map((r) => r.prevHash),
        receipts.map((r) => r.signature),
        receipts.map((r) => r.at),
        receipts[0]?.keyId ?? '',
        head.hash,
        receipts.map((r) => r.journalSeq.toString()),
        pendingIds,
      ],
    );
    // Refused (legwork_refuse), the statement wrote nothing: not one receipt, staged row or head move.
    const [row] = await refused.catch((error: unknown) => {
      throw refusalReason(error) === null ? error : new Error(`receipt ${receipts[0]?.journalSeq} is not the next link of the journal head`);
    });
    return { lockedAtUs: Number(row.locked_at_us), pid: Number(row.pid) };
  }

  /**
   * When the backend `pid` last went idle (unix µs, the database's clock), or null when it is not
   * idle or not listed (PGlite). A backend goes idle after its statement's commit, before its reply.
   */
  async idleSince(pid: number): Promise<number | null> {
    const row = await this.db.one<{ us: string | null }>(
      `SELECT (extract(epoch FROM state_change) * 1e6)::bigint::text AS us FROM pg_stat_activity WHERE pid = $1 AND state = 'idle'`,
      [pid],
    );
    return row?.us ? Number(row.us) : null;
  }

  /** One receipt as the head's next link (appendBatch of one, no staged row): the chain's rules, tested alone. */
  async appendReceipt(tx: Tx, r: NewReceipt): Promise<void> {
    await this.appendBatch(tx, { journalSeq: r.journalSeq - 1n, hash: r.prevHash }, [r], []);
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
