import { Injectable } from '@nestjs/common';
import { parseWallet } from '@legwork/protocol';
import type { Tx } from '../../common/database/sql';
import { parseSymbol } from '../instruments/domain/symbol';
import { type ReceiptKind, encodeReceipt, receiptHash, takerCommitment, toHex } from '@legwork/protocol';
import { asBuffer } from '../../common/bytes';
import { MetricsService } from '../health/metrics.service';
import type { ReceiptView } from './domain/receipt';
import { ExchangeKeyService } from './exchange-key.service';
import { type FeeCredit, type JournalRow, JournalRepository } from './journal.repository';

/** What a fill or a revert is: the fields of its receipt that are not the journal's. */
export interface JournalEntry {
  kind: ReceiptKind;
  fillId: string;
  rfqId: string;
  quoteId: string;
  takerAccountId: number;
  /** The fill's salt (its revert reuses it): the receipt holds the taker's commitment, never its key. */
  takerSalt: Buffer;
  makerWallet: string;
  side: 'buy' | 'sell';
  price: bigint;
  fee: bigint;
  /** filled_at, or the revert's time. */
  at: number;
  legs: ReadonlyArray<{ instrument: string; quantity: bigint }>;
}

/** The receipt journal (docs/spec/design.md 14): fills' and reverts' receipts, signed and chained. */
@Injectable()
export class JournalService {
  constructor(
    private readonly journal: JournalRepository,
    private readonly key: ExchangeKeyService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Writes and signs the receipt of a fill or revert inside its transaction `sql`, as the last thing
   * before COMMIT: the head row is locked here (every other fill's append waits from here until
   * this transaction commits), the payload is built and signed in Node, and one statement writes
   * the receipt and moves the head. The hold is two round trips and one signature (about 60 µs).
   * A fill passes its `feeCredit`: the fee account's balance is credited in the statement that
   * locks the head (JournalRepository.lockHead), not in a round trip of its own under the locks.
   * The lock's wait and hold go to /metrics when the transaction commits (three clock reads).
   */
  async append(tx: Tx, entry: JournalEntry, feeCredit?: FeeCredit): Promise<ReceiptView> {
    const asked = process.hrtime.bigint();
    const head = await this.journal.lockHead(tx, entry.takerAccountId, feeCredit);
    const held = process.hrtime.bigint();
    tx.afterCommit(() => this.metrics.journalHead(Number(held - asked) / 1e9, Number(process.hrtime.bigint() - held) / 1e9));
    const journalSeq = head.journalSeq + 1n;
    // A Buffer view of the bytes (no copy): the journal row stores it, the view carries its base64.
    const payload = asBuffer(
      encodeReceipt({
        kind: entry.kind,
        domain: this.key.domain,
        journalSeq,
        prevHash: Buffer.from(head.hash, 'hex'),
        rfqId: entry.rfqId,
        quoteId: entry.quoteId,
        takerCommitment: takerCommitment(entry.takerSalt, parseWallet(head.takerWallet)),
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
      }),
    );
    const hash = toHex(receiptHash(payload));
    const signature = this.key.sign(payload).toString('base64');
    await this.journal.appendReceipt(tx, {
      journalSeq,
      kind: entry.kind,
      fillId: entry.fillId,
      payload,
      hash,
      prevHash: head.hash,
      keyId: this.key.keyId,
      signature,
      at: entry.at,
    });
    return { journal_seq: Number(journalSeq), kind: entry.kind, payload: payload.toString('base64'), hash, key_id: this.key.keyId, signature };
  }

  /** Receipts by fill id: `fill` and `revert` (when reverted). One read for a page of fills. */
  receiptsOf(fillIds: readonly string[]): Promise<Map<string, { fill?: ReceiptView; revert?: ReceiptView }>> {
    return this.journal.receiptsOf(fillIds);
  }

  /** The chain after `after`, at most `limit` rows, and the head (docs/spec/design.md 14: no parties, no prices). */
  segment(after: number, limit: number): Promise<{ rows: JournalRow[]; head: { journal_seq: number; hash: string } }> {
    return this.journal.segment(after, limit);
  }

  keys(): Promise<Array<{ key_id: string; public_key: string; from: number }>> {
    return this.journal.keys();
  }
}
