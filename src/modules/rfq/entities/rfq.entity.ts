import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { bigint, wholeNumeric } from '../../../common/database/columns';
import type { DeclineReason, Side, StoredLeg } from '../domain/rfq-record';
import type { RfqState } from '../domain/rfq-state';

/**
 * The expiry sweep's deadline: the RFQ's own while pending, the quote's while quoted. TypeORM
 * compares it with the expression it keeps in `typeorm_metadata` (migration 1763800000180).
 */
const RFQ_EXPIRY_DEADLINE = `CASE WHEN state = 'quoted' THEN quote_expires_at ELSE expires_at END`;

/**
 * An RFQ with its one quote, accept and fill outcome (migrations 1 and 2). Times are unix seconds,
 * money micro-USDC. The quote's nine columns are all set or all null.
 */
@Entity('rfqs')
@Unique('rfqs_account_id_client_ref_key', ['accountId', 'clientRef'])
@Unique('rfqs_quote_id_key', ['quoteId'])
@Check('rfqs_state_check', `state IN ('pending', 'quoted', 'accepted', 'submitting', 'filled', 'declined', 'expired', 'failed')`)
@Check('rfqs_decline_reason_check', `decline_reason IN ('unlisted_instrument', 'near_expiry', 'size_limit', 'stale_data', 'low_confidence', 'queue_overflow')`)
@Check('rfqs_accepted_side_check', `accepted_side IN ('buy', 'sell')`)
@Check('rfqs_check', 'num_nulls(quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature) IN (0, 9)')
// A competitive RFQ is quoted with its quotes in competition_quotes (migration 1763800000340).
@Check('rfqs_check1', `state IN ('pending', 'declined', 'expired') OR quote_id IS NOT NULL OR competition IS NOT NULL`)
// A taker's cancel ends an RFQ in `expired` (docs/spec/design.md 15): no other state carries it.
@Check('rfqs_cancelled_at_check', `cancelled_at IS NULL OR state = 'expired'`)
@Check('rfqs_quote_received_check', '(quote_id IS NULL) = (quote_received_at_ms IS NULL)')
// `id DESC`: TypeORM's index metadata has no sort order, so these two are declared here but not
// synchronized (the migrations create them; the schema test checks their definitions).
@Index('rfqs_taker_list', { synchronize: false }) // (account_id, id DESC): rfq.list, newest first
@Index('rfqs_state', { synchronize: false }) // (state, id DESC): the console's RFQs by state
@Index('rfqs_taker_open', ['accountId'], { where: `state IN ('pending', 'quoted', 'accepted', 'submitting')` })
@Index('rfqs_pending', ['id'], { where: `state = 'pending'` })
// rfq.maker.poll: pending RFQs, and competitive ones still taking quotes while quoted (docs/spec/design.md 18).
@Index('rfqs_open_to_quote', ['id'], { where: `state = 'pending' OR (state = 'quoted' AND competition IS NOT NULL)` })
// The makers directory's stats: competitive RFQs without a panel (they reach every quoter) by id, that is by creation (migration 1763800000400).
@Index('rfqs_competitive_unpaneled', ['id'], { where: `competition IS NOT NULL AND (competition ->> 'accounts') IS NULL` })
@Index('rfqs_expiry_due', ['expiryDeadline'], { where: `state IN ('pending', 'quoted')` })
@Index('rfqs_fill_due', ['updatedAt'], { where: `state IN ('accepted', 'submitting')` })
// A maker's live quotes, read index-only (rfq.maker.get_limits and respond under limits, docs/spec/design.md section 15).
@Index('rfqs_maker_live', ['makerAccountId', 'quoteExpiresAt', 'id'], { where: `state = 'quoted'` })
// rfq.maker.quotes (docs/spec/design.md section 19), newest first by a backward scan: all of a maker's quotes, and the live ones.
@Index('rfqs_maker_quotes', ['makerAccountId', 'quoteReceivedAtMs', 'quoteId'], { where: 'quote_id IS NOT NULL' })
@Index('rfqs_maker_quotes_live', ['makerAccountId', 'quoteReceivedAtMs', 'quoteId'], { where: `state = 'quoted'` })
// The history sweep (docs/spec/design.md 17): ended RFQs whose history is still to go, oldest end first.
// An RFQ leaves it when deleted (no fill) or when its rfq_events are (a fill's, marked by
// events_pruned_at); a later revert moves ended_at and puts it back.
@Index('rfqs_history_due', ['endedAt', 'id'], { where: `ended_at IS NOT NULL AND events_pruned_at IS DISTINCT FROM ended_at` })
export class RfqEntity {
  /** 32 hex characters, time ordered; byte order ("C") so that cursors compare as the ids sort. */
  @PrimaryColumn({ name: 'id', type: 'char', length: 32, collation: 'C', primaryKeyConstraintName: 'rfqs_pkey' })
  id!: string;

  @Column(bigint('account_id'))
  @ForeignKey('accounts', { name: 'rfqs_account_id_fkey' })
  accountId!: bigint;

  @Column({ name: 'client_ref', type: 'text' })
  clientRef!: string;

  @Column({ name: 'legs', type: 'jsonb' })
  legs!: StoredLeg[];

  @Column({ name: 'asset', type: 'text' })
  asset!: string;

  @Column(bigint('expiry'))
  expiry!: bigint;

  @Column({ name: 'state', type: 'text' })
  state!: RfqState;

  @Column(bigint('created_at'))
  createdAt!: bigint;

  @Column(bigint('updated_at'))
  updatedAt!: bigint;

  @Column(bigint('expires_at'))
  expiresAt!: bigint;

  @Column(bigint('max_quote_expires_at'))
  maxQuoteExpiresAt!: bigint;

  @Column({ name: 'quote_id', type: 'char', length: 64, nullable: true })
  quoteId!: string | null;

  @Column(bigint('maker_account_id', { nullable: true }))
  @ForeignKey('accounts', { name: 'rfqs_maker_account_id_fkey' })
  makerAccountId!: bigint | null;

  @Column({ name: 'maker_wallet', type: 'text', nullable: true })
  makerWallet!: string | null;

  /** u64: beyond bigint, so numeric(20, 0). */
  @Column(wholeNumeric('quote_nonce', { nullable: true, precision: 20 }))
  quoteNonce!: bigint | null;

  @Column(bigint('bid', { nullable: true }))
  bid!: bigint | null;

  @Column(bigint('ask', { nullable: true }))
  ask!: bigint | null;

  @Column(bigint('issued_at', { nullable: true }))
  issuedAt!: bigint | null;

  @Column(bigint('quote_expires_at', { nullable: true }))
  quoteExpiresAt!: bigint | null;

  @Column({ name: 'maker_signature', type: 'text', nullable: true })
  makerSignature!: string | null;

  /** Unix milliseconds when the quote was taken (migration 1763800000360); set with the quote. */
  @Column(bigint('quote_received_at_ms', { nullable: true }))
  quoteReceivedAtMs!: bigint | null;

  @Column({ name: 'decline_reason', type: 'text', nullable: true })
  declineReason!: DeclineReason | null;

  @Column(bigint('declined_by', { nullable: true }))
  declinedBy!: bigint | null;

  @Column({ name: 'accepted_side', type: 'text', nullable: true })
  acceptedSide!: Side | null;

  @Column({ name: 'failure_error', type: 'text', nullable: true })
  failureError!: string | null;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage!: string | null;

  @Column(bigint('fill_id', { nullable: true }))
  fillId!: bigint | null;

  @Column(bigint('fill_price', { nullable: true }))
  fillPrice!: bigint | null;

  @Column(bigint('fill_fee', { nullable: true }))
  fillFee!: bigint | null;

  @Column(bigint('filled_at', { nullable: true }))
  filledAt!: bigint | null;

  @Column({ name: 'fill_reverted', type: 'boolean', default: false })
  fillReverted!: boolean;

  @Column(bigint('ended_at', { nullable: true }))
  endedAt!: bigint | null;

  /** Unix seconds of the taker's rfq.cancel (migration 1763800000210); null when it was not cancelled. */
  @Column(bigint('cancelled_at', { nullable: true }))
  cancelledAt!: bigint | null;

  /**
   * The ended_at whose rfq_events the history sweep deleted, for an RFQ kept for its fill
   * (migration 1763800000250); null until then.
   */
  @Column(bigint('events_pruned_at', { nullable: true }))
  eventsPrunedAt!: bigint | null;

  /**
   * The competition asked at create (docs/spec/design.md 18; migration 1763800000340): null for a
   * seed RFQ, else `{ makers, accounts }` (the panel's wallets in the order given and their
   * account ids, or both null: every quoter). Part of the RFQ's terms, like its legs.
   */
  @Column({ name: 'competition', type: 'jsonb', nullable: true })
  competition!: { makers: string[] | null; accounts: number[] | null } | null;

  /** Generated (stored) from state, quote_expires_at and expires_at; never written. */
  @Column({ ...bigint('expiry_deadline', { nullable: true }), generatedType: 'STORED', asExpression: RFQ_EXPIRY_DEADLINE, insert: false, update: false })
  expiryDeadline!: bigint | null;
}
