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
 * Used by `npm run maker` (tools/src/maker.ts) and in-process by `npm run demo`.
 */
import { EventEmitter } from 'node:events';
import {
  type AuthResult,
  type DeclineReason,
  type FillView,
  type Instrument,
  type Keypair,
  type ExchangeKeyInfo,
  LegworkClient,
  type LegworkClientOptions,
  LegworkHttp,
  type MakerNotification,
  type MarketConfig,
  type MakerQuoteEvent,
  type OpenRfq,
  RfqError,
  type Side,
  buildQuote,
  formatRfq,
  verifyReceipt,
} from '@legwork/sdk';
import { type LogLine, clock, describeLegs, logger, nowSeconds, reason, short, utcDate, wsUrlOf } from '../common';
import { LIMIT_REFUSALS, type LimitChanges, mergeLimits } from '../desk';
import { type SignatureMismatch, checkRefusedSignature } from './signature-check';
import { DEFAULT_POLICY, type Freshness, type PricingPolicy, priceRfq } from './pricing';

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

  constructor(private readonly options: MakerOptions) {
    super();
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.nonce = options.startNonce ?? BigInt(Date.now()) * 1000n;
    this.log = options.log ?? logger('maker');
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
      if (this.options.limits) await this.applyLimits(client, this.options.limits);
      const events = client.notifications('rfq_maker');
      await client.subscribeMaker();
      this.listening = this.listen(events);
      this.log(
        `signed in as account ${session.account_id} (wallet ${session.wallet}), spread ${this.policy.spreadBps} bps, quotes live ${this.policy.quoteLifetimeSeconds} s`,
      );
      await this.pollAll();
      return session;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Sets the limits of the options over those the server holds, and logs what is now in force. */
  private async applyLimits(client: LegworkClient, changes: LimitChanges): Promise<void> {
    const current = await client.getMakerLimits();
    const result = await client.setMakerLimits(mergeLimits(current.limits, changes));
    this.log(
      `limits set: ${JSON.stringify(result.limits)}${Object.keys(result.admin_limits).length ? `; operator's: ${JSON.stringify(result.admin_limits)}` : ''}`,
    );
  }

  /** Stops listening and closes the connection (quotes already given stay firm until they expire). */
  async stop(): Promise<void> {
    this.stopped = true;
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
          else this.log(`${n.event} quote ${short(n.rfq.quote_id)} of rfq ${short(n.rfq.rfq_id)} (competitive)`);
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

  /** The fill's receipt checked against the fill as heard and the exchange's key. */
  private receiptText(e: MakerQuoteEvent): string {
    const receipt = e.fill?.receipt;
    if (!e.fill || !receipt) return 'no receipt';
    try {
      verifyReceipt(receipt, { keys: this.exchangeKeys, fill: { ...e.fill, rfq_id: e.rfq_id, quote_id: e.quote_id } });
      return `receipt #${receipt.journal_seq} verified`;
    } catch (error) {
      return `receipt NOT VERIFIED: ${reason(error)}`;
    }
  }

  private onQuoteEvent(event: 'accepted' | 'filled' | 'failed' | 'expired', e: MakerQuoteEvent): void {
    const mine = this.quotes.get(e.rfq_id);
    const side = e.side ? `taker ${e.side === 'buy' ? 'buys' : 'sells'}` : '';
    if (event === 'accepted') this.log(`accepted rfq ${short(e.rfq_id)} quote ${short(e.quote_id)}: ${side} at ${sidePrice(mine, e.side)}`);
    else if (event === 'filled')
      this.log(
        `filled   rfq ${short(e.rfq_id)}: ${side} at ${fillText(e.fill)}${mine ? ` (our ${e.side === 'buy' ? 'ask' : 'bid'})` : ''}; ${this.receiptText(e)}`,
      );
    else if (event === 'failed') this.log(`failed   rfq ${short(e.rfq_id)} quote ${short(e.quote_id)}${e.fill?.reverted ? ' (fill reverted)' : ''}`);
    else this.log(`expired  rfq ${short(e.rfq_id)}: our quote ${short(e.quote_id)} was not accepted in time`);
    if (event !== 'accepted') this.quotes.delete(e.rfq_id);
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
    this.queue = this.queue
      .then(() => this.answer(rfq))
      .catch((error: Error) => {
        if (!this.stopped) {
          this.log(`error on rfq ${short(rfq.rfq_id)}: ${reason(error)}`);
          if (this.listenerCount('error') > 0) this.emit('error', error); // an unheard 'error' would throw
        }
      });
    this.forgetOld();
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
    const think = this.options.thinkMs?.(decision.action, rfq) ?? 0;
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
      const record: QuoteRecord = {
        rfqId: rfq.rfq_id,
        quoteId: result.quote_id,
        nonce,
        bid: decision.bid,
        ask: decision.ask,
        mid: decision.mid,
        expiresAt: decision.expiresAt,
      };
      this.quotes.set(rfq.rfq_id, record);
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

  /** Instruments with their marks, and when each index was last posted (one batch frame). */
  private async refreshMarket(): Promise<void> {
    const [instruments, config] = await this.client!.batch([
      { method: 'public/get_instruments', params: {} },
      { method: 'public/get_market_config', params: {} },
    ]);
    if (!instruments.ok) throw instruments.error;
    if (!config.ok) throw config.error;
    const list = (instruments.result as { instruments: Instrument[] }).instruments;
    const market = config.result as MarketConfig;
    this.instruments.clear();
    for (const i of list) this.instruments.set(i.symbol, i);
    this.freshness = {
      indexUpdatedAt: new Map(market.assets.map((a) => [a.asset, a.index_updated_at])),
      maxAgeSeconds: market.rfq.market_data_max_age_seconds,
    };
    this.instrumentsAt = Date.now();
  }

  private forgetOld(): void {
    if (this.seen.size < 10_000) return;
    const cutoff = Date.now() - 2 * 3600_000;
    for (const [id, at] of this.seen) if (at < cutoff) this.seen.delete(id);
  }
}

function sidePrice(quote: QuoteRecord | undefined, side: Side | null): string {
  if (!quote || !side) return '?';
  return side === 'buy' ? `our ask ${formatRfq(quote.ask)}` : `our bid ${formatRfq(quote.bid)}`;
}

function fillText(fill: FillView | null): string {
  if (!fill) return '?';
  return `${fill.price} (fill ${fill.fill_id}, taker fee ${fill.fee})`;
}
