import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { RfqError } from '../../common/errors/app-error';
import { logger } from '../../common/logging/logger';
import { InstrumentsService } from '../instruments/instruments.service';
import { maxQuoteExpiresAt } from './domain/quote-terms';
import { resolveLegs } from './domain/rfq-legs';
import type { CreateRfqCommand } from './domain/rfq-params';
import { type RfqCompetition, type RfqRecord, sameLegs } from './domain/rfq-record';
import { AccountsService } from '../accounts/accounts.service';
import { type RfqView, legsView, rfqView } from './domain/rfq-view';
import { UuidV7Generator } from './domain/uuid-v7';
import { RfqExpiryService } from './rfq-expiry.service';
import { RfqTransitionsService } from './rfq-transitions.service';
import { RfqRepository } from './rfq.repository';

export type { RfqCaller } from '../../common/rpc/rfq-caller';
import type { RfqCaller } from '../../common/rpc/rfq-caller';

/** Opening RFQs: rfq.create (the reads, rfq.get, rfq.list and rfq.maker.poll, are RfqBookService's). */
@Injectable()
export class RfqService {
  private readonly ids = new UuidV7Generator((size) => randomBytes(size));

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: RfqRepository,
    private readonly instruments: InstrumentsService,
    private readonly expiry: RfqExpiryService,
    private readonly transitions: RfqTransitionsService,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * Idempotent by (taker, client_ref): the same legs in the same order give back the RFQ already
   * made, whatever its state (and whatever its legs are worth now); other legs are
   * RFQ_CANONICAL_MISMATCH. One statement: it takes one of the taker's MAX_OPEN_RFQS slots
   * (`accounts.open_rfqs`, raised only below the limit: concurrent creates queue on the account
   * row and each sees the count the one before left) and inserts the RFQ with its event row; when
   * the client_ref is taken it refuses itself (legwork_refuse), so the slot is not kept, and the
   * RFQ already made is given back.
   */
  async create(taker: RfqCaller, command: CreateRfqCommand): Promise<RfqView> {
    const nowMs = this.clock.nowMs();
    const now = Math.floor(nowMs / 1000);
    let legs: ReturnType<typeof resolveLegs>;
    try {
      legs = resolveLegs(command.legs, (symbol) => this.instruments.get(symbol), now);
    } catch (error) {
      const existing = await this.store.findByClientRef(taker.accountId, command.clientRef);
      if (existing) return this.replay(existing, command);
      throw await this.refusal(command.legs, now, error);
    }
    let competition: RfqCompetition | null;
    try {
      competition = await this.competition(taker, command);
    } catch (error) {
      const existing = await this.store.findByClientRef(taker.accountId, command.clientRef);
      if (existing) return this.replay(existing, command);
      throw error;
    }
    const id = this.ids.next(nowMs);
    const expiresAt = now + this.config.rfqTtlSeconds;

    const rfq = await this.store.insertPending(
      {
        id,
        accountId: taker.accountId,
        clientRef: command.clientRef,
        legs: legsView(command),
        asset: legs.asset,
        expiry: legs.expiry,
        createdAt: now,
        expiresAt,
        maxQuoteExpiresAt: maxQuoteExpiresAt(now, legs.expiry),
        competition,
      },
      this.config.maxOpenRfqs,
    );
    if (!rfq) {
      // No slot (the limit) or the client_ref was taken (its RFQ is given back, whatever the count).
      const existing = await this.store.findByClientRef(taker.accountId, command.clientRef);
      if (existing) return this.replay(existing, command);
      throw new RfqError('RFQ_OPEN_LIMIT', `at most ${this.config.maxOpenRfqs} open RFQs per taker`, { reason: 'max_open_rfqs' });
    }

    logger.event('info', 'rfq created', { rfq_id: rfq.id, account_id: rfq.accountId, legs: rfq.legs.length }, 'Rfq');
    await this.expiry.schedule(rfq.expiresAt);
    await this.transitions.created(rfq);
    return rfqView(rfq);
  }

  /**
   * The refusal of legs the view refused. A leg the view does not hold may be of a round settled
   * before the 7-day line (docs/spec/design.md section 17: no instance holds those): the legs are
   * checked again with the stored instruments (read by primary key, on this failure path only),
   * so that a settled leg is refused as settled, not as unknown.
   */
  private async refusal(legs: CreateRfqCommand['legs'], now: number, error: unknown): Promise<unknown> {
    const unheld = legs.map((l) => l.instrument).filter((symbol) => this.instruments.get(symbol) === undefined);
    if (unheld.length === 0) return error;
    const stored = await this.instruments.stored(unheld);
    try {
      resolveLegs(legs, (symbol) => this.instruments.get(symbol) ?? stored.get(symbol), now);
    } catch (again) {
      return again;
    }
    return error;
  }

  /**
   * The competition of a create (docs/spec/design.md 18): null for a seed RFQ; without `makers`
   * every quoter; else 1 to COMPETITION_MAX_MAKERS distinct wallets of quoters, not the caller's
   * own (RFQ_VALUE_OUT_OF_RANGE naming the wallet or the count), read in one statement.
   */
  private async competition(taker: RfqCaller, command: CreateRfqCommand): Promise<RfqCompetition | null> {
    if (!command.competition) return null;
    const makers = command.competition.makers;
    if (makers === undefined) return { makers: null, accounts: null };
    const max = this.config.competitionMaxMakers;
    const out = (message: string) => new RfqError('RFQ_VALUE_OUT_OF_RANGE', message);
    if (makers.length < 1 || makers.length > max) throw out(`competition.makers must hold 1 to ${max} wallets, got ${makers.length}`);
    makers.forEach((wallet, i) => {
      if (makers.indexOf(wallet) !== i) throw out(`competition.makers[${i}] repeats ${wallet}`);
      if (wallet === taker.wallet) throw out(`competition.makers[${i}] is the caller's own wallet ${wallet}`);
    });
    const found = new Map((await this.accounts.findByWallets(makers)).map((a) => [a.wallet, a]));
    const accounts = makers.map((wallet, i) => {
      const account = found.get(wallet);
      if (!account || !account.roles.includes('quoter')) throw out(`competition.makers[${i}] ${wallet} is not the wallet of a quoter`);
      return account.id;
    });
    return { makers: [...makers], accounts };
  }

  private replay(existing: RfqRecord, command: CreateRfqCommand): RfqView {
    if (!sameCompetition(existing.competition, command.competition)) {
      throw new RfqError('RFQ_CANONICAL_MISMATCH', `client_ref ${command.clientRef} was used with another competition`, { rfqId: existing.id });
    }
    if (!sameLegs(existing.legs, command.legs)) {
      throw new RfqError('RFQ_CANONICAL_MISMATCH', `client_ref ${command.clientRef} was used for other legs (or the same legs in another order)`, {
        rfqId: existing.id,
      });
    }
    return rfqView(existing);
  }
}

/** The competition stored and the one a create asks for are the same (no competition, every quoter, or the same panel in the same order). */
function sameCompetition(stored: RfqCompetition | null, asked: CreateRfqCommand['competition']): boolean {
  if (!stored || !asked) return !stored && !asked;
  const makers = asked.makers ?? null;
  if (stored.makers === null || makers === null) return stored.makers === makers;
  return stored.makers.length === makers.length && stored.makers.every((wallet, i) => wallet === makers[i]);
}
