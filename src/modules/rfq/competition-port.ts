import { Injectable } from '@nestjs/common';
import { type CompetitiveUsage, LimitsHooks } from '../maker-limits/limits-hooks';
import type { MakerLimitsRow } from '../maker-limits/maker-limits-row';
import type { DeclineCommand, RespondCommand } from './domain/rfq-params';
import type { CompetitiveQuote, DeclineReason, RfqRecord } from './domain/rfq-record';
import type { StoredLiveQuote } from './rfq-row';
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

/**
 * A write of tables the competition module owns, run as CTEs of a statement of this module so
 * that both take one round trip: the CTEs' bodies (data-modifying CTEs must be top-level, one
 * each), their parameters numbered by `param` (which answers the placeholder, e.g. `$4`). The
 * competition module writes the SQL; this module runs it.
 */
export type CompanionWrite = (param: (value: unknown) => string) => readonly string[];

/** A read of a table the competition module owns, run as a subquery of a statement of this module: its SQL, given the placeholder of its one parameter. */
export type CompanionRead = (param: string) => string;

/** A value read from tables the competition module owns, as an SQL expression of a statement of this module, its parameters numbered by `param` (as CompanionWrite's). */
export type CompanionValue = (param: (value: unknown) => string) => string;

/**
 * The taker's `quotes` event of a competitive RFQ as the competition module hands it to be stored:
 * its live quotes (or the expression that reads them in the storing statement), the competition
 * module's write of the change, and the move between pending and quoted it makes, if any.
 */
export interface QuotesEvent {
  live: readonly StoredLiveQuote[] | CompanionValue;
  also?: CompanionWrite;
  move?: { from: 'pending' | 'quoted'; to: 'pending' | 'quoted' };
}

/**
 * `also`'s CTEs (`companion0 AS (...), `, ...) to open a WITH list, their values pushed on `params`;
 * '' for none. A body may read an earlier one by that name, to run after it (the order of a
 * statement's data-modifying CTEs is otherwise unspecified).
 */
export function companionCtes(also: CompanionWrite | undefined, params: unknown[]): string {
  if (!also) return '';
  return also((value) => `$${params.push(value)}`)
    .map((body, i) => `companion${i} AS (${body}), `)
    .join('');
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
export interface CompetitionPort extends CompetitiveUsage {
  /** rfq.maker.respond on a competitive RFQ, after respond's checks up to the limits: adds or replaces the maker's live quote. */
  respond(maker: RfqCaller, command: RespondCommand, checked: CheckedQuote): Promise<RespondResult>;
  /**
   * rfq.maker.respond on an RFQ known to be competitive (CompetitionHooks.known), without a read
   * before its transaction: respond's checks (`check`) run on the RFQ as locked there, with the
   * maker's limits row read with it. null when anything refuses, or the maker's limits need its
   * lock first: nothing was written (the caller runs respond as usual, which answers the refusal).
   */
  respondKnown(
    maker: RfqCaller,
    command: RespondCommand,
    check: (found: { rfq: RfqRecord; limits: MakerLimitsRow | null }) => Promise<CheckedQuote>,
  ): Promise<RespondResult | null>;
  /** rfq.maker.decline on a competitive RFQ: the maker's decline (its live quote cancelled). */
  decline(maker: RfqCaller, command: DeclineCommand, rfq: RfqRecord): Promise<DeclineResult>;
  /** rfq.cancel of a competitive RFQ in pending or quoted: its live quotes end expired, in the move's transaction. null: it did not move. */
  cancel(taker: RfqCaller, rfq: RfqRecord): Promise<RfqRecord | null>;
  /** A competitive RFQ in pending or quoted whose round settles: expired now, its live quotes ended expired, its transcript written. null: it did not move. */
  expireNow(rfqId: string): Promise<RfqRecord | null>;
  /** Sets `liveQuotes` of the competitive RFQs among `records` that take quotes (pending, quoted), in one read. */
  withLiveQuotes(records: readonly RfqRecord[]): Promise<void>;
  /** The competitive quote `quoteId` (live or ended), null when there is none: a respond's exact repeat, a cursor's place. */
  quote(quoteId: string): Promise<KeptCompetitiveQuote | null>;
  /** One page of the maker's competitive quotes (rfq.maker.quotes), off the keyset indexes of migration 1763800000390. */
  makerQuotes(query: CompetitiveQuotesQuery): Promise<KeptCompetitiveQuote[]>;
}

/** Competitive RFQs remembered at most (about 40 bytes each); the others take the read before respond's transaction. */
const KNOWN_RFQS = 100_000;

/**
 * The competition module's registration (see CompetitionPort); null until it registers (a
 * seed-only app). The maker limits, below this module, count competitive quotes: they get the port too.
 */
@Injectable()
export class CompetitionHooks {
  private registered: CompetitionPort | null = null;
  /** Ids of competitive RFQs created on this instance (see `known`); forgotten all at once past KNOWN_RFQS. */
  private readonly created = new Set<string>();

  constructor(private readonly limits: LimitsHooks) {}

  /** A new RFQ: a competitive one is remembered, so that its responds here need no read before their transaction. */
  opened(rfq: RfqRecord): void {
    if (!rfq.competition || !this.registered) return;
    if (this.created.size >= KNOWN_RFQS) this.created.clear();
    this.created.add(rfq.id);
  }

  /** Whether the RFQ is known competitive here (its terms never change; its state is read under its lock). */
  known(rfqId: string): boolean {
    return this.created.has(rfqId);
  }

  use(port: CompetitionPort): void {
    this.registered = port;
    this.limits.useCompetition(port);
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
