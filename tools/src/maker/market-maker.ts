/**
 * The reference market maker: signs in with its wallet, listens on `rfq_maker`, catches up with
 * `rfq.maker.poll` (at start, after a reconnection and after a notification gap), prices every
 * RFQ from the exchange's marks (`pricing.ts`) and answers with a signed two-sided quote or a
 * decline. One RFQ at a time, so quote nonces reach the server in increasing order.
 *
 * Its own quote events (accepted, filled, failed, expired) carry `account_seq`: after a
 * reconnection the SDK re-subscribes from the last one delivered, so each reaches `listen` once,
 * in order, whatever was sent while away (docs/spec/design.md 13). Every fill's receipt is verified against
 * the exchange's published key. `created` is a broadcast, not replayed: the poll catches up.
 *
 * The desk (docs/spec/design.md 15): limits given in the options are set at start through
 * `rfq.maker.set_limits` (merged into what the server holds); a quote a limit refuses is logged
 * as such; a signature the exchange refuses is sent again to `rfq.maker.check`, whose payload
 * the maker diffs against its own bytes and logs, field by field.
 *
 * Competition (docs/spec/design.md 18): with `compete` it quotes a competitive RFQ at once and
 * keeps its live quote there current or withdraws it (maker/competing.ts); `profile` is set at start.
 *
 * Used by `npm run maker` (tools/src/maker.ts) and in-process by `npm run demo`.
 */
import { EventEmitter } from 'node:events';
import {
  type AuthResult,
  type DeclineReason,
  type Instrument,
  type Keypair,
  type ExchangeKeyInfo,
  LegworkClient,
  type LegworkClientOptions,
  LegworkHttp,
  type MakerNotification,
  type MakerProfileUpdate,
  type MakerQuoteEvent,
  type OpenRfq,
  RfqError,
  buildQuote,
  formatRfq,
} from '@legwork/sdk';
import { type LogLine, clock, describeLegs, logger, nowSeconds, reason, short, utcDate, wsUrlOf } from '../common';
import { LIMIT_REFUSALS, type LimitChanges, applyLimits } from '../desk';
import { type SignatureMismatch, checkRefusedSignature } from './signature-check';
import { DEFAULT_POLICY, type Freshness, type PricingPolicy, priceRfq, readMarket } from './pricing';
import { type CompeteOptions, CompetingQuotes } from './competing';
import { fillText, receiptText, sidePrice } from './quote-text';

export interface MakerOptions {
  /** HTTP base URL of the exchange (`http://127.0.0.1:3000`); the WebSocket is `<url>/client`. */
  url: string;
  keypair: Keypair;
  policy?: Partial<PricingPolicy>;
  /** Marks older than this are fetched again before pricing (default 1,000 ms). */
  instrumentsMaxAgeMs?: number;
  /** First quote nonce - 1 (default `Date.now() × 1000`, so a restart stays above the high-water mark). */
  startNonce?: bigint;
  /** Log sink (default: stdout lines tagged `maker`). */
  log?: LogLine;
  /** Also log `closed` events (RFQs answered by someone else). */
  verbose?: boolean;
  /** Options of the SDK client (headers, timeouts, reconnect). */
  clientOptions?: LegworkClientOptions;
  /** Limits set at start with `rfq.maker.set_limits`, over those the server holds (null removes one). */
  limits?: LimitChanges;
  /** Milliseconds to wait between pricing an RFQ and answering it (the sandbox staggers its makers); default none. */
  thinkMs?: (action: 'quote' | 'decline', rfq: OpenRfq) => number;
  /** `--compete`: competitive RFQs are quoted at once and their live quotes kept (maker/competing.ts). */
  compete?: CompeteOptions;
  /** Set at start with `rfq.maker.set_profile` (`--name`, `--listed`). */
  profile?: MakerProfileUpdate;
}

export interface QuoteRecord {
  rfqId: string;
  quoteId: string;
  nonce: bigint;
  bid: bigint;
  ask: bigint;
  mid: bigint;
  expiresAt: number;
}

export interface MakerEvents {
  quoted: [quote: QuoteRecord, rfq: OpenRfq];
  declined: [info: { rfqId: string; reason: DeclineReason; detail: string }];
  accepted: [event: MakerQuoteEvent];
  filled: [event: MakerQuoteEvent];
  failed: [event: MakerQuoteEvent];
  expired: [event: MakerQuoteEvent];
  /** A quote refused by one of the maker's limits or its protection (RFQ_OPEN_LIMIT, RFQ_SIZE_INVALID, RFQ_PRICE_TOLERANCE). */
  limited: [info: { rfqId: string; error: string; message: string }];
  /** A quote refused for its signature, with what `rfq.maker.check` showed. */
  signatureMismatch: [info: SignatureMismatch];
  /** The maker's protection tripped: no new quote is taken until `until` (null: until a reset). */
  protection: [info: { trippedAt: number; until: number | null; reason: string }];
  /** A live competitive quote withdrawn (`--compete`: its market data went stale). */
  withdrawn: [info: { rfqId: string; quoteId: string; why: string }];
  /** Answering an RFQ failed unexpectedly (logged too; the maker goes on with the next RFQ). */
  error: [error: Error];
}

export class ReferenceMaker extends EventEmitter<MakerEvents> {
  readonly policy: PricingPolicy;
  private client: LegworkClient | null = null;
  private session: AuthResult | null = null;
  private domain: string | undefined;
  /** The exchange's receipt keys (GET /v1/exchange/keys), read at start. */
  private exchangeKeys: ExchangeKeyInfo[] = [];
  private nonce: bigint;
  private readonly instruments = new Map<string, Instrument>();
  private instrumentsAt = 0;
  private freshness: Freshness | undefined;
  private readonly seen = new Map<string, number>();
  private readonly quotes = new Map<string, QuoteRecord>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private listening: Promise<void> | null = null;
  private readonly log: LogLine;
  /** The live competitive quotes, watched (`compete` only). */
  readonly competing: CompetingQuotes | null;

  constructor(private readonly options: MakerOptions) {
    super();
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.nonce = options.startNonce ?? BigInt(Date.now()) * 1000n;
    this.log = options.log ?? logger('maker');
    this.competing = options.compete ? new CompetingQuotes(options.compete, this.competingHost()) : null;
  }

  get wallet(): string {
    return this.options.keypair.wallet;
  }

  get accountId(): number | null {
    return this.session?.account_id ?? null;
  }

  /**
   * Connects, signs in (the account must exist and hold the quoter role), subscribes to
   * `rfq_maker` and quotes what is already pending. Resolves once the maker is live.
   */
  async start(): Promise<AuthResult> {
    const client = await LegworkClient.connect(wsUrlOf(this.options.url), this.options.clientOptions);
    this.client = client;
    try {
      const session = await client.signIn(this.options.keypair);
      this.session = session;
      if (session.account_id === null)
        throw new Error(`wallet ${session.wallet} has no account: an admin creates it with POST /v1/admin/accounts { wallet, roles: ["quoter"] }`);
      if (!session.roles.includes('quoter'))
        throw new Error(`account ${session.account_id} (wallet ${session.wallet}) lacks the quoter role (roles: ${session.roles.join(', ') || 'none'})`);
      this.domain = (await client.getMarketConfig()).quote_domain; // sign for this deployment's service name
      await this.refreshMarket();
      this.exchangeKeys = (await new LegworkHttp(this.options.url).exchangeKeys()).keys;
      client.on('reconnected', () => {
        this.log(`reconnected: quote events replayed after account_seq ${client.lastDelivered('rfq_maker') ?? 'none'}; catching up with rfq.maker.poll`);
        this.catchUp();
      });
      client.on('gap', (gap) => {
        this.log(`missed ${gap.missed} notification(s): catching up with rfq.maker.poll`);
        this.catchUp();
      });
      client.on('disconnected', ({ code }) => {
        if (!this.stopped) this.log(`disconnected (${code}), reconnecting`);
      });
      if (this.options.limits) this.log(await applyLimits(client, this.options.limits));
      // Never fatal: the maker quotes whether or not the directory lists it.
      if (this.options.profile)
        this.log(
          await client.setProfile(this.options.profile).then(
            (p) => `profile set: ${JSON.stringify(p)}`,
            (e: unknown) => `profile NOT set: ${reason(e)}`,
          ),
        );
      const events = client.notifications('rfq_maker');
      await client.subscribeMaker();
      this.listening = this.listen(events);
      this.log(
        `signed in as account ${session.account_id} (wallet ${session.wallet}), spread ${this.policy.spreadBps} bps, quotes live ${this.policy.quoteLifetimeSeconds} s`,
      );
      await this.pollAll();
      this.competing?.start();
      return session;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** What the competitive watch reaches of the maker: its market view, its queue and its answer. */
  private competingHost(): ConstructorParameters<typeof CompetingQuotes>[1] {
    return {
      client: () => this.client,
      refreshMarket: () => this.refreshMarket(),
      market: () => ({ instruments: this.instruments, freshness: this.freshness }),
      policy: this.policy,
      requote: (rfq, why) =>
        this.serialize(async () => (this.log(`requote  rfq ${short(rfq.rfq_id)}: ${why}`), await this.answer(rfq))).catch((e: Error) => this.failed(rfq, e)),
      serialize: (work) => this.serialize(work),
      withdrawn: (info) => this.emit('withdrawn', info),
      log: this.log,
    };
  }

  /** Runs `work` after the answers queued (one at a time: nonces reach the exchange in order). */
  private serialize(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops listening and closes the connection (quotes already given stay firm until they expire). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.competing?.stop();
    const client = this.client;
    this.client = null;
    await client?.close();
    await this.listening?.catch(() => undefined);
    await this.queue.catch(() => undefined);
  }

  /** The quote this maker gave on an RFQ, if any. */
  quoteFor(rfqId: string): QuoteRecord | undefined {
    return this.quotes.get(rfqId);
  }

  private async listen(events: AsyncIterable<MakerNotification>): Promise<void> {
    for await (const n of events) {
      switch (n.event) {
        case 'created':
          this.enqueue(n.rfq);
          break;
        case 'closed':
          this.seen.set(n.rfq.rfq_id, Date.now());
          this.competing?.forget(n.rfq.rfq_id);
          if (this.options.verbose) this.log(`closed   rfq ${short(n.rfq.rfq_id)} → ${n.rfq.state} (not ours)`);
          break;
        case 'accepted':
        case 'filled':
        case 'failed':
          this.onQuoteEvent(n.event, n.rfq);
          break;
        case 'expired':
        case 'traded_away':
          // A seed quote's RFQ expired (its view), or a competitive quote lost or ended at its own time ({ rfq_id, quote_id }).
          if ('state' in n.rfq) this.onQuoteEvent('expired', n.rfq);
          else {
            this.log(`${n.event} quote ${short(n.rfq.quote_id)} of rfq ${short(n.rfq.rfq_id)} (competitive)`);
            this.competing?.ended(n.event, n.rfq.rfq_id, n.rfq.quote_id);
          }
          break;
        case 'protection': {
          const trip = n.protection;
          this.log(
            `PROTECTION tripped at ${clock(trip.tripped_at)}: ${trip.reason}; no new quote ${trip.until === null ? 'until reset-protection' : `until ${utcDate(trip.until)}`} (live quotes stay firm)`,
          );
          this.emit('protection', { trippedAt: trip.tripped_at, until: trip.until, reason: trip.reason });
          break;
        }
      }
    }
  }

  private onQuoteEvent(event: 'accepted' | 'filled' | 'failed' | 'expired', e: MakerQuoteEvent): void {
    const mine = this.quotes.get(e.rfq_id);
    const side = e.side ? `taker ${e.side === 'buy' ? 'buys' : 'sells'}` : '';
    if (event === 'accepted') this.log(`accepted rfq ${short(e.rfq_id)} quote ${short(e.quote_id)}: ${side} at ${sidePrice(mine, e.side)}`);
    else if (event === 'filled')
      this.log(
        `filled   rfq ${short(e.rfq_id)}: ${side} at ${fillText(e.fill)}${mine ? ` (our ${e.side === 'buy' ? 'ask' : 'bid'})` : ''}; ${receiptText(e, this.exchangeKeys)}`,
      );
    else if (event === 'failed') this.log(`failed   rfq ${short(e.rfq_id)} quote ${short(e.quote_id)}${e.fill?.reverted ? ' (fill reverted)' : ''}`);
    else this.log(`expired  rfq ${short(e.rfq_id)}: our quote ${short(e.quote_id)} was not accepted in time`);
    if (event !== 'accepted') this.quotes.delete(e.rfq_id);
    this.competing?.forget(e.rfq_id);
    this.emit(event, e);
  }

  /** Quotes every pending RFQ, page by page (at start, after a reconnection or a gap). */
  private catchUp(): void {
    void this.pollAll().catch((error: Error) => {
      if (!this.stopped) this.log(`catch-up failed: ${reason(error)}`);
    });
  }

  private async pollAll(): Promise<void> {
    const client = this.client;
    if (!client) return;
    let cursor: string | undefined;
    do {
      const page = await client.poll({ cursor });
      for (const rfq of page.items) this.enqueue(rfq);
      cursor = page.next_cursor;
    } while (cursor && !this.stopped);
  }

  private enqueue(rfq: OpenRfq): void {
    if (this.stopped || this.seen.has(rfq.rfq_id)) return;
    this.seen.set(rfq.rfq_id, Date.now());
    this.serialize(() => this.answer(rfq)).catch((error: Error) => this.failed(rfq, error));
    this.forgetOld();
  }

  private failed(rfq: OpenRfq, error: Error): void {
    if (this.stopped) return;
    this.log(`error on rfq ${short(rfq.rfq_id)}: ${reason(error)}`);
    if (this.listenerCount('error') > 0) this.emit('error', error); // an unheard 'error' would throw
  }

  private async answer(rfq: OpenRfq): Promise<void> {
    const client = this.client;
    if (!client || this.stopped) return;
    if (rfq.expires_at <= nowSeconds()) return;
    const unknown = rfq.legs.some((l) => !this.instruments.has(l.instrument));
    let refreshed = false;
    if (unknown || Date.now() - this.instrumentsAt > (this.options.instrumentsMaxAgeMs ?? 1000)) {
      await this.refreshMarket();
      refreshed = true;
    }
    let decision = priceRfq(rfq, this.instruments, nowSeconds(), this.policy, this.freshness);
    if (decision.action === 'decline' && (decision.reason === 'stale_data' || decision.reason === 'unlisted_instrument') && !refreshed) {
      await this.refreshMarket(); // the cached view may be a moment too old: look again before declining
      decision = priceRfq(rfq, this.instruments, nowSeconds(), this.policy, this.freshness);
    }
    const think = this.competing && rfq.competitive ? 0 : (this.options.thinkMs?.(decision.action, rfq) ?? 0);
    if (think > 0) await new Promise((resolve) => setTimeout(resolve, think));
    if (decision.action === 'decline') {
      try {
        await client.decline(rfq.rfq_id, decision.reason);
        this.log(`decline  rfq ${short(rfq.rfq_id)} [${describeLegs(rfq.legs)}]: ${decision.reason} (${decision.detail})`);
        this.emit('declined', { rfqId: rfq.rfq_id, reason: decision.reason, detail: decision.detail });
      } catch (error) {
        this.refused('decline', rfq, error);
      }
      return;
    }
    const nonce = ++this.nonce;
    const built = buildQuote(this.options.keypair, {
      rfq,
      quoteNonce: nonce,
      bid: decision.bid,
      ask: decision.ask,
      issuedAt: decision.issuedAt,
      expiresAt: decision.expiresAt,
      instruments: this.instruments,
      domain: this.domain,
    });
    try {
      const result = await client.respond(built.params);
      const { bid, ask, mid, expiresAt } = decision;
      const record: QuoteRecord = { rfqId: rfq.rfq_id, quoteId: result.quote_id, nonce, bid, ask, mid, expiresAt };
      this.quotes.set(rfq.rfq_id, record);
      if (rfq.competitive) this.competing?.track(rfq, result.quote_id, decision.mid);
      this.log(
        `quote    rfq ${short(rfq.rfq_id)} [${describeLegs(rfq.legs)}] mid ${formatRfq(decision.mid)}: bid ${built.params.bid} / ask ${built.params.ask}` +
          ` until ${clock(decision.expiresAt)} (quote ${short(result.quote_id)}, nonce ${nonce})`,
      );
      this.emit('quoted', record, rfq);
    } catch (error) {
      if (error instanceof RfqError && error.error === 'RFQ_INVALID_SIGNATURE') await this.explainSignature(client, rfq, built);
      this.refused('respond', rfq, error);
    }
  }

  /** After a signature refusal: what `rfq.maker.check` says of it, logged (and emitted when the payloads were compared). */
  private async explainSignature(client: LegworkClient, rfq: OpenRfq, built: ReturnType<typeof buildQuote>): Promise<void> {
    const { line, mismatch } = await checkRefusedSignature(client, rfq.rfq_id, built);
    this.log(line);
    if (mismatch) this.emit('signatureMismatch', mismatch);
  }

  /** A refused respond or decline: expected when another maker was first or the RFQ ended. */
  private refused(what: string, rfq: OpenRfq, error: unknown): void {
    if (what === 'respond' && error instanceof RfqError && LIMIT_REFUSALS.includes(error.error)) {
      this.log(`limit    rfq ${short(rfq.rfq_id)}: quote refused by a limit: ${error.error} (${error.message})`);
      this.emit('limited', { rfqId: rfq.rfq_id, error: error.error, message: error.message });
      return;
    }
    if (error instanceof RfqError && (!error.retryable || error.error === 'RFQ_RATE_LIMITED')) {
      this.log(`skipped  rfq ${short(rfq.rfq_id)}: ${what} refused with ${error.error} (${error.message})`);
      return;
    }
    throw error;
  }

  /** Instruments with their marks, and when each index was last posted. */
  private async refreshMarket(): Promise<void> {
    const market = await readMarket(this.client!);
    this.instruments.clear();
    for (const [symbol, i] of market.instruments) this.instruments.set(symbol, i);
    this.freshness = market.freshness;
    this.instrumentsAt = Date.now();
  }

  private forgetOld(): void {
    if (this.seen.size < 10_000) return;
    const cutoff = Date.now() - 2 * 3600_000;
    for (const [id, at] of this.seen) if (at < cutoff) this.seen.delete(id);
  }
}
