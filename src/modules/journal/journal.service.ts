import { Injectable } from '@nestjs/common';
import { parseWallet } from '@legwork/protocol';
import type { Sql, Tx } from '../../common/database/sql';
import { parseSymbol } from '../instruments/domain/symbol';
import type { ReceiptKind } from '@legwork/protocol';
import { unlinkedBody } from './domain/chain';
import type { ReceiptView } from './domain/receipt';
import { ExchangeKeyService } from './exchange-key.service';
import { JournalAppender } from './journal-appender.service';
import { type FeeCredit, type JournalRow, JournalRepository } from './journal.repository';

/** What a fill or a revert is: the fields of its receipt that are not the journal's. */
export interface JournalEntry {
  kind: ReceiptKind;
  fillId: string;
  rfqId: string;
  quoteId: string;
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
    private readonly appender: JournalAppender,
  ) {}

  /**
   * Stages the receipt of a fill or revert inside its transaction (docs/receipts.md, "How it is
   * written"): the receipt's terms, encoded with journal_seq, prev_hash and the taker's commitment
   * left zero, in one statement and without the journal head, so fills do not wait for each other
   * on the chain. The appender chains it after the COMMIT (`receiptOf`); the taker's commitment
   * is made then from the fill row's salt (`fills.taker_salt`, written in this transaction). A
   * fill passes its `feeCredit`: the fee account's balance is credited in the same statement.
   */
  async stage(tx: Tx, entry: JournalEntry, feeCredit?: FeeCredit): Promise<void> {
    const body = unlinkedBody({
      kind: entry.kind,
      domain: this.key.domain,
      rfqId: entry.rfqId,
      quoteId: entry.quoteId,
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
    await this.journal.stage(tx, { kind: entry.kind, fillId: entry.fillId, body, at: entry.at }, feeCredit);
  }

  /**
   * The signed receipt of a committed fill (kind 0) or revert (1) that staged it: waits for the
   * appender's next batch (or finds it chained by another instance). Call after the COMMIT, never
   * inside a transaction (PGlite's one session would wait for itself).
   */
  receiptOf(fillId: string, kind: 0 | 1): Promise<ReceiptView> {
    return this.appender.receiptOf(fillId, kind);
  }

  /**
   * Returns once the receipt of a committed fill (kind 0) or revert (1) is chained: at once (one
   * keyed read) when it is not staged, else after the appender's next batch.
   */
  async chained(fillId: string, kind: 0 | 1): Promise<void> {
    if (await this.journal.isStaged(fillId, kind)) await this.appender.receiptOf(fillId, kind);
  }

  /** Chains every receipt staged so far (a read that found a committed fill without its receipt waits for it so). */
  async flush(): Promise<void> {
    await this.appender.flush();
  }

  /** Chains every staged receipt on a session the caller holds alone (JournalAppender.chainOn): the embedded backup's. */
  chainOn(sql: Sql): Promise<number> {
    return this.appender.chainOn(sql);
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
