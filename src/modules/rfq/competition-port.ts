import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../common/database/sql';
import type { MakerLimitsRow } from './maker-limits.repository';
import type { DeclineCommand, RespondCommand } from './domain/rfq-params';
import type { CompetitiveQuote, DeclineReason, RfqRecord } from './domain/rfq-record';
import type { RfqCaller } from './rfq.service';

/** A quote past respond's checks up to the limits: the RFQ, the payload the exchange built, its id, and the maker's limits row. */
export interface CheckedQuote {
  rfq: RfqRecord;
  now: number;
  payload: Buffer;
  quoteId: string;
  limits: MakerLimitsRow | null;
}

/** A competitive quote as the competition module keeps it: its RFQ, and its end (null: live). */
export interface KeptCompetitiveQuote extends CompetitiveQuote {
  rfqId: string;
  end: 'accepted' | 'traded_away' | 'replaced' | 'cancelled' | 'expired' | null;
}

/** One page of a maker's competitive quotes for rfq.maker.quotes: newest first by (received_at_ms, quote_id), after `after`. */
export interface CompetitiveQuotesQuery {
  makerAccountId: number;
  /** Only the live ones: not ended and `expires_at` after `now` (unix seconds). */
  live: boolean;
  after: { receivedAtMs: number; quoteId: string } | null;
  limit: number;
  now: number;
}

export interface RespondResult {
  rfq_id: string;
  quote_id: string;
  state: 'quoted';
}

export interface DeclineResult {
  rfq_id: string;
  state: 'declined';
  decline_reason: DeclineReason;
}

/**
 * What this module asks of competitive RFQs (docs/spec/design.md 18), which the competition module
 * owns: it imports this module, so it registers itself here (CompetitionHooks.use) rather than
 * being imported. Only a competitive RFQ (`rfq.competition` set) is ever handed to it.
 */
export interface CompetitionPort {
  /** rfq.maker.respond on a competitive RFQ, after respond's checks up to the limits: adds or replaces the maker's live quote. */
  respond(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult>;
  /** rfq.maker.decline on a competitive RFQ: the maker's decline (its live quote cancelled). */
  decline(maker: RfqCaller, command: DeclineCommand, rfq: RfqRecord): Promise<DeclineResult>;
  /** rfq.cancel of a competitive RFQ in pending or quoted: its live quotes end expired, in the move's transaction. null: it did not move. */
  cancel(taker: RfqCaller, rfq: RfqRecord): Promise<RfqRecord | null>;
  /** Sets `liveQuotes` of the competitive RFQs among `records` that take quotes (pending, quoted), in one read. */
  withLiveQuotes(records: readonly RfqRecord[]): Promise<void>;
  /** A maker's live competitive quotes (their RFQ ids and expires_at) live after `liveAfter` (unix seconds). */
  liveQuotes(accountId: number, liveAfter: number, sql: Sql): Promise<Array<{ id: string; expiresAt: number }>>;
  /** The competitive quote `quoteId` (live or ended), null when there is none: a respond's exact repeat, a cursor's place. */
  quote(quoteId: string): Promise<KeptCompetitiveQuote | null>;
  /** One page of the maker's competitive quotes (rfq.maker.quotes), off the keyset indexes of migration 1763800000390. */
  makerQuotes(query: CompetitiveQuotesQuery): Promise<KeptCompetitiveQuote[]>;
  /** The version of a maker's competitive quotes that no event to it moves (cancels, declines): text, '' when none. */
  version(accountId: number, sql: Sql | Tx): Promise<string>;
}

/** The competition module's registration (see CompetitionPort); null until it registers (a seed-only app). */
@Injectable()
export class CompetitionHooks {
  private registered: CompetitionPort | null = null;

  use(port: CompetitionPort): void {
    this.registered = port;
  }

  get port(): CompetitionPort {
    if (!this.registered) throw new Error('competitive RFQs need the competition module');
    return this.registered;
  }

  get active(): CompetitionPort | null {
    return this.registered;
  }
}

/** May this maker see and answer this RFQ? A seed RFQ or one without a panel: every quoter; else the panel only. */
export function onPanel(rfq: RfqRecord, makerAccountId: number): boolean {
  const accounts = rfq.competition?.accounts;
  return !accounts || accounts.includes(makerAccountId);
}
