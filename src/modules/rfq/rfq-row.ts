import { parseRfqSigned } from '@legwork/protocol';
import type { RfqErrorCode } from '../../common/errors/app-error';
import type { CompetitiveQuote, DeclineReason, RfqCompetition, RfqLeg, RfqRecord, Side, StoredLeg } from './domain/rfq-record';
import type { RfqState } from './domain/rfq-state';
import { type Narrow, type RowOf, columnList } from '../../common/database/table';

/**
 * The `rfqs` row as PostgreSQL returns it, and its mapping to the domain record: used only by the
 * rfq module's repositories (another module asks RfqLookupService or RfqTransitionsService for records).
 */
const RFQ = columnList('rfqs', [
  'id',
  'account_id',
  'client_ref',
  'legs',
  'asset',
  'expiry',
  'state',
  'created_at',
  'updated_at',
  'expires_at',
  'max_quote_expires_at',
  'quote_id',
  'maker_account_id',
  'maker_wallet',
  'quote_nonce',
  'bid',
  'ask',
  'issued_at',
  'quote_expires_at',
  'maker_signature',
  'quote_received_at_ms',
  'decline_reason',
  'declined_by',
  'accepted_side',
  'failure_error',
  'failure_message',
  'fill_id',
  'fill_price',
  'fill_fee',
  'filled_at',
  'fill_reverted',
  'ended_at',
  'cancelled_at',
  'competition',
]);

/** Every column of the record (the retention sweep's bookkeeping columns are not the record's). */
export const RFQ_COLUMNS = RFQ.sql;

/** A live quote as a stored `quotes` event carries it (docs/spec/design.md 18): every number as text. */
export interface StoredLiveQuote {
  quote_id: string;
  maker_account_id: string;
  maker_wallet: string;
  quote_nonce: string;
  bid: string;
  ask: string;
  issued_at: string;
  expires_at: string;
  maker_signature: string;
  received_at_ms: string;
}

export type RfqRow = Narrow<
  RowOf<typeof RFQ>,
  { legs: StoredLeg[]; state: RfqState; decline_reason: DeclineReason | null; accepted_side: Side | null; competition: RfqCompetition | null }
> & { live_quotes?: StoredLiveQuote[] };

function toCompetitiveQuote(q: StoredLiveQuote): CompetitiveQuote {
  return {
    quoteId: q.quote_id,
    makerAccountId: Number(q.maker_account_id),
    makerWallet: q.maker_wallet,
    quoteNonce: BigInt(q.quote_nonce),
    bid: BigInt(q.bid),
    ask: BigInt(q.ask),
    issuedAt: Number(q.issued_at),
    expiresAt: Number(q.expires_at),
    makerSignature: q.maker_signature,
    receivedAtMs: Number(q.received_at_ms),
  };
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

export function toRfqRecord(row: RfqRow): RfqRecord {
  const legs: RfqLeg[] = row.legs.map((leg) => ({ instrument: leg.instrument, quantity: parseRfqSigned(leg.quantity) }));
  return {
    id: row.id,
    accountId: Number(row.account_id),
    clientRef: row.client_ref,
    legs,
    asset: row.asset,
    expiry: Number(row.expiry),
    state: row.state,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
    maxQuoteExpiresAt: Number(row.max_quote_expires_at),
    quote:
      row.quote_id === null
        ? null
        : {
            quoteId: row.quote_id,
            makerAccountId: Number(row.maker_account_id),
            makerWallet: row.maker_wallet!,
            quoteNonce: BigInt(row.quote_nonce!),
            bid: BigInt(row.bid!),
            ask: BigInt(row.ask!),
            issuedAt: Number(row.issued_at),
            expiresAt: Number(row.quote_expires_at),
            makerSignature: row.maker_signature!,
            receivedAtMs: Number(row.quote_received_at_ms),
          },
    declineReason: row.decline_reason,
    declinedBy: num(row.declined_by),
    acceptedSide: row.accepted_side,
    failure: row.failure_error === null ? null : { error: row.failure_error as RfqErrorCode, message: row.failure_message ?? '' },
    fill:
      row.fill_id === null
        ? null
        : {
            fillId: String(row.fill_id),
            price: BigInt(row.fill_price!),
            fee: BigInt(row.fill_fee!),
            filledAt: Number(row.filled_at),
            reverted: row.fill_reverted,
          },
    endedAt: num(row.ended_at),
    cancelledAt: num(row.cancelled_at),
    competition: row.competition ?? null,
    ...(row.live_quotes ? { liveQuotes: row.live_quotes.map(toCompetitiveQuote) } : {}),
  };
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function page(rows: RfqRow[], limit: number): Page<RfqRecord> {
  const items = rows.slice(0, limit).map(toRfqRecord);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
}

/** Sets `accountSeqs` of a moved record from the `account_seqs` column of its move (channel → number as text). */
export function withAccountSeqs(record: RfqRecord, value: Record<string, string> | null): RfqRecord {
  if (value) record.accountSeqs = Object.fromEntries(Object.entries(value).map(([channel, seq]) => [channel, Number(seq)]));
  return record;
}
