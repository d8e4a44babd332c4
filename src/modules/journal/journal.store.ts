import { Injectable } from '@nestjs/common';
import { type ReceiptKind, encodeReceipt, parseWallet, receiptHash } from '@legwork/protocol';
import { Database } from '../../common/database/database';
import { type SqlExecutor, sqlRows } from '../../common/database/sql';
import { parseSymbol } from '../instruments/domain/symbol';
import type { ReceiptView } from './domain/receipt';
import { ExchangeKey } from './exchange-key';

/** What a fill or a revert is: the fields of its receipt that are not the journal's. */
export interface JournalEntry {
  kind: ReceiptKind;
  fillId: string;
  rfqId: string;
  quoteId: string;
  takerAccountId: number;
  makerWallet: string;
  side: 'buy' | 'sell';
  price: bigint;
  fee: bigint;
  /** filled_at, or the revert's time. */
  at: number;
  legs: ReadonlyArray<{ instrument: string; quantity: bigint }>;
}

export interface JournalRow {
  journal_seq: number;
  kind: ReceiptKind;
  hash: string;
  prev_hash: string;
  at: number;
}

type ReceiptRow = { journal_seq: string; kind: number; fill_id: string; payload: Buffer; hash: string; key_id: string; signature: string };

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

/** The receipt journal (design.md 14). */
@Injectable()
export class JournalStore {
  constructor(
    private readonly db: Database,
    private readonly key: ExchangeKey,
  ) {}

  /**
   * Writes and signs the receipt of a fill or revert inside its transaction `m`, as the last thing
   * before COMMIT: the head row is locked here (every other fill's append waits from here until
   * this transaction commits), the payload is built and signed in Node, and one statement writes
   * the receipt and moves the head. The hold is two round trips and one signature (about 60 µs).
   */
  async append(m: SqlExecutor, entry: JournalEntry): Promise<ReceiptView> {
    const [head] = await sqlRows<{ journal_seq: string; hash: string; taker: string }>(
      m,
      `SELECT h.journal_seq, h.hash, (SELECT wallet FROM accounts WHERE id = $1) AS taker FROM journal_head h WHERE h.id = 1 FOR UPDATE`,
      [entry.takerAccountId],
    );
    const journalSeq = BigInt(head.journal_seq) + 1n;
    const payload = encodeReceipt({
      kind: entry.kind,
      domain: this.key.domain,
      journalSeq,
      prevHash: Buffer.from(head.hash, 'hex'),
      rfqId: entry.rfqId,
      quoteId: entry.quoteId,
      taker: parseWallet(head.taker),
      maker: parseWallet(entry.makerWallet),
      side: entry.side,
      price: entry.price,
      fee: entry.fee,
      at: entry.at,
      fillId: BigInt(entry.fillId),
      legs: entry.legs.map((leg) => {
        const terms = parseSymbol(leg.instrument);
        if (!terms) throw new Error(`${leg.instrument} is not an instrument symbol`);
        return { symbol: leg.instrument, strike: terms.strike, kind: terms.kind, quantity: leg.quantity };
      }),
    });
    const hash = receiptHash(payload).toString('hex');
    const signature = this.key.sign(payload).toString('base64');
    await m.query(
      `WITH receipt AS (
         INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       )
       UPDATE journal_head SET journal_seq = $1, hash = $5 WHERE id = 1`,
      [journalSeq.toString(), entry.kind, entry.fillId, payload, hash, head.hash, this.key.keyId, signature, entry.at],
    );
    return { journal_seq: Number(journalSeq), kind: entry.kind, payload: payload.toString('base64'), hash, key_id: this.key.keyId, signature };
  }

  /** Receipts by fill id: `fill` and `revert` (when reverted). One read for a page of fills. */
  async receiptsOf(fillIds: readonly string[]): Promise<Map<string, { fill?: ReceiptView; revert?: ReceiptView }>> {
    const out = new Map<string, { fill?: ReceiptView; revert?: ReceiptView }>();
    if (fillIds.length === 0) return out;
    const rows = await sqlRows<ReceiptRow>(
      this.db.dataSource,
      `SELECT journal_seq, kind, fill_id, payload, hash, key_id, signature FROM receipts WHERE fill_id = ANY($1::bigint[])`,
      [fillIds],
    );
    for (const row of rows) {
      const entry = out.get(String(row.fill_id)) ?? {};
      if (Number(row.kind) === 0) entry.fill = receiptView(row);
      else entry.revert = receiptView(row);
      out.set(String(row.fill_id), entry);
    }
    return out;
  }

  /** The chain after `after`, at most `limit` rows, and the head (design.md 14: no parties, no prices). */
  async segment(after: number, limit: number): Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }> {
    const rows = await sqlRows<{ journal_seq: string; kind: number; hash: string; prev_hash: string; at: string; head_seq: string; head_hash: string }>(
      this.db.dataSource,
      `SELECT r.journal_seq, r.kind, r.hash, r.prev_hash, r.at, h.journal_seq AS head_seq, h.hash AS head_hash
         FROM journal_head h LEFT JOIN LATERAL (SELECT * FROM receipts WHERE journal_seq > $1 ORDER BY journal_seq LIMIT $2) r ON true
        WHERE h.id = 1`,
      [after, limit],
    );
    const head = { journal_seq: Number(rows[0].head_seq), hash: rows[0].head_hash };
    return {
      rows: rows.filter((r) => r.journal_seq !== null).map((r) => ({ journal_seq: Number(r.journal_seq), kind: Number(r.kind) as ReceiptKind, hash: r.hash, prev_hash: r.prev_hash, at: Number(r.at) })),
      head,
    };
  }

  async keys(): Promise<Array<{ key_id: string; public_key: string; from: number }>> {
    const rows = await sqlRows<{ key_id: string; public_key: string; from_at: string }>(this.db.dataSource, `SELECT key_id, public_key, from_at FROM exchange_keys ORDER BY from_at, key_id`);
    return rows.map((r) => ({ key_id: r.key_id, public_key: r.public_key, from: Number(r.from_at) }));
  }
}
