import { Injectable } from '@nestjs/common';
import { Database } from '../../common/database/database';
import type { Tx } from '../../common/database/sql';
import { type Maybe, type Narrow, type Row, type RowOf, column, columnList } from '../../common/database/table';
import type { AuditActor, AuditRow, AuditValue, ChainPoint } from './domain/audit-chain';

/** What a page of the log is asked for: newest first, before the cursor, optionally filtered. */
export interface AuditPageQuery {
  /** Only rows older than this audit_seq (the last row of the previous page). */
  after?: number;
  limit: number;
  action?: string;
  /** Only commands run by this account (an admin session's). */
  accountId?: number;
}

const COLUMNS = columnList('audit_log', [
  'audit_seq',
  'at',
  'actor_via',
  'actor_account_id',
  'actor_wallet',
  'actor_jti',
  'client_ip',
  'action',
  'target',
  'params',
  'status',
  'prev_hash',
  'hash',
]);
type LogRow = Narrow<RowOf<typeof COLUMNS>, { actor_via: AuditActor['via']; target: AuditValue; params: AuditValue }>;
/** A page's row: the head, and a log row or (no row in the page) nulls. */
type PageRow = Maybe<LogRow> & { head_seq: string; head_hash: string; head_at: string | null; head_key_id: string | null; head_signature: string | null };

/** The head as GET /v1/admin/audit answers it: signed once a row was appended (docs/spec/design.md section 20). */
export type AuditHead = ChainPoint & { at: number | null; key_id: string | null; signature: string | null };

/** Whether the log side of the page's LEFT JOIN LATERAL matched: its key is set only then, and every column with it. */
const logged = (row: PageRow): row is PageRow & LogRow => row.audit_seq !== null;

function auditRow(r: LogRow): AuditRow {
  return {
    audit_seq: Number(r.audit_seq),
    at: Number(r.at),
    actor: { via: r.actor_via, account_id: r.actor_account_id === null ? null : Number(r.actor_account_id), wallet: r.actor_wallet, jti: r.actor_jti },
    client_ip: r.client_ip,
    action: r.action,
    target: r.target,
    params: r.params,
    status: Number(r.status),
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

/** The admin audit log's tables: audit_log and its chain head audit_head (docs/spec/design.md section 16). */
@Injectable()
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /**
   * Locks the head row in the caller's transaction: every other append, on any instance, waits
   * from here until it ends, so two commands can never link to the same row (the journal's way,
   * JournalRepository.lockHead).
   */
  async lockHead(tx: Tx): Promise<ChainPoint> {
    const head = await tx.one<Row<'audit_head', 'audit_seq' | 'hash'>>(`SELECT audit_seq, hash FROM audit_head WHERE id = 1 FOR UPDATE`);
    if (!head) throw new Error('audit_head has no row');
    return { audit_seq: Number(head.audit_seq), hash: head.hash };
  }

  /** Writes the row and moves the head to it, signed: one statement, under the head's lock. */
  async append(tx: Tx, row: AuditRow, signed: { keyId: string; signature: string }): Promise<void> {
    await tx.exec(
      `WITH entry AS (
         INSERT INTO audit_log (${COLUMNS.sql})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13)
       )
       UPDATE audit_head SET audit_seq = $1, hash = $13, at = $2, key_id = $14, signature = $15 WHERE id = 1`,
      [
        row.audit_seq,
        row.at,
        row.actor.via,
        row.actor.account_id,
        row.actor.wallet,
        row.actor.jti,
        row.client_ip,
        row.action,
        JSON.stringify(row.target),
        JSON.stringify(row.params),
        row.status,
        row.prev_hash,
        row.hash,
        signed.keyId,
        signed.signature,
      ],
    );
  }

  /**
   * A page, newest first, and the head, read in one statement. Only the filters given are in the
   * statement, so each shape keeps to its index (audit_log_pkey, audit_log_action, audit_log_actor,
   * audit_log_actor_action) read backwards from the cursor: no sort, no scan of the history.
   */
  async page(query: AuditPageQuery): Promise<{ rows: AuditRow[]; head: AuditHead }> {
    const params: Array<string | number> = [query.limit];
    const where: string[] = [];
    if (query.after !== undefined) where.push(`${column('audit_log', 'audit_seq')} < $${params.push(query.after)}`);
    if (query.action !== undefined) where.push(`${column('audit_log', 'action')} = $${params.push(query.action)}`);
    if (query.accountId !== undefined) where.push(`${column('audit_log', 'actor_account_id')} = $${params.push(query.accountId)}`);
    const rows = await this.db.rows<PageRow>(
      `SELECT a.*, h.audit_seq AS head_seq, h.hash AS head_hash, h.at AS head_at, h.key_id AS head_key_id, h.signature AS head_signature
         FROM audit_head h
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS.sql} FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY audit_seq DESC LIMIT $1
         ) a ON true
        WHERE h.id = 1`,
      params,
    );
    return {
      rows: rows.filter(logged).map(auditRow),
      head: {
        audit_seq: Number(rows[0].head_seq),
        hash: rows[0].head_hash,
        at: rows[0].head_at === null ? null : Number(rows[0].head_at),
        key_id: rows[0].head_key_id,
        signature: rows[0].head_signature,
      },
    };
  }
}
