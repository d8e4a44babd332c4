/**
 * The reference maker's competitive quotes (docs/spec/design.md 18, `--compete`): on a
 * competitive RFQ a maker holds one live quote it may replace or withdraw until the taker takes
 * one. This keeps the maker's live competitive quotes and, every `watchMs`, looks at the marks:
 * - the package mid moved by more than `replaceOnMoveBps` of the quoted mid: quote again (the
 *   exchange replaces the live quote in the same transaction);
 * - the index under the quote is older than `maxDataAgeSeconds` (or the exchange's own limit):
 *   withdraw it (`rfq.maker.cancel_quote`), since a taker could take a price the maker no longer
 *   stands behind;
 * - a quote that reached its own `expires_at` while the RFQ still takes quotes is quoted again.
 * `traded_away`, `expired` and `closed` end the tracking of the RFQ.
 */
import type { Instrument, LegworkClient, OpenRfq } from '@legwork/sdk';
import { type LogLine, nowSeconds, reason, short } from '../common';
import { type Freshness, type PricingPolicy, priceRfq } from './pricing';

export interface CompeteOptions {
  /** Quote again when the package mid moved by more than this many bps of the quoted mid; null: never. */
  replaceOnMoveBps: number | null;
  /** Withdraw the live quotes when the index is older than this (seconds); null: at the exchange's limit only. */
  maxDataAgeSeconds: number | null;
  /** How often the marks are looked at while a competitive quote is live (default 1,000 ms). */
  watchMs?: number;
}

/** One live competitive quote of the maker. */
interface CompetingQuote {
  rfq: OpenRfq;
  quoteId: string;
  mid: bigint;
}

/** What the watch needs of the maker. */
interface CompetingHost {
  client(): LegworkClient | null;
  /** Reads the marks and the index times again. */
  refreshMarket(): Promise<void>;
  market(): { instruments: ReadonlyMap<string, Instrument>; freshness: Freshness | undefined };
  policy: PricingPolicy;
  /** Quotes the RFQ again (queued behind the maker's other answers: nonces stay in order). */
  requote(rfq: OpenRfq, why: string): Promise<void>;
  /** Runs `work` in the maker's queue. */
  serialize(work: () => Promise<void>): Promise<void>;
  withdrawn(info: { rfqId: string; quoteId: string; why: string }): void;
  log: LogLine;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

export class CompetingQuotes {
  private readonly live = new Map<string, CompetingQuote>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private readonly options: CompeteOptions,
    private readonly host: CompetingHost,
  ) {}

  /** The live competitive quotes, by RFQ. */
  get quotes(): ReadonlyMap<string, CompetingQuote> {
    return this.live;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.watchMs ?? 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A quote of the maker on a competitive RFQ was taken (a new one or a replace). */
  track(rfq: OpenRfq, quoteId: string, mid: bigint): void {
    this.live.set(rfq.rfq_id, { rfq, quoteId, mid });
  }

  /** The RFQ left the book, or the maker's quote there was accepted: nothing more to watch. */
  forget(rfqId: string): void {
    this.live.delete(rfqId);
  }

  /** A quote-end event (`traded_away`, `expired`); an expired quote on an RFQ still open is quoted again. */
  ended(event: 'traded_away' | 'expired', rfqId: string, quoteId: string): void {
    const held = this.live.get(rfqId);
    if (!held || held.quoteId !== quoteId) return; // an older quote of a replace, or one already withdrawn
    this.live.delete(rfqId);
    if (event === 'expired' && held.rfq.expires_at > nowSeconds()) void this.host.requote(held.rfq, 'its quote expired');
  }

  /** One look at the marks: replace what moved, withdraw what went stale. */
  async tick(): Promise<void> {
    if (this.ticking || this.live.size === 0 || !this.host.client()) return;
    this.ticking = true;
    try {
      await this.host.serialize(() => this.host.refreshMarket());
      for (const held of [...this.live.values()]) await this.look(held);
    } catch (error) {
      this.host.log(`competitive watch: ${reason(error)}`);
    } finally {
      this.ticking = false;
    }
  }

  private async look(held: CompetingQuote): Promise<void> {
    const { instruments, freshness } = this.host.market();
    const limit = this.options.maxDataAgeSeconds;
    const stricter = freshness && limit !== null ? { ...freshness, maxAgeSeconds: Math.min(freshness.maxAgeSeconds, limit) } : freshness;
    const decision = priceRfq(held.rfq, instruments, nowSeconds(), this.host.policy, stricter);
    if (decision.action === 'decline') {
      if (decision.reason === 'stale_data') await this.withdraw(held, decision.detail);
      return;
    }
    const bps = this.options.replaceOnMoveBps;
    if (bps === null || held.mid === 0n) return;
    const moved = abs(decision.mid - held.mid) * 10_000n;
    if (moved > BigInt(bps) * abs(held.mid)) await this.host.requote(held.rfq, `mid moved ${held.mid} → ${decision.mid} (micro), over ${bps} bps`);
  }

  private async withdraw(held: CompetingQuote, why: string): Promise<void> {
    const client = this.host.client();
    if (!client || this.live.get(held.rfq.rfq_id) !== held) return;
    this.live.delete(held.rfq.rfq_id);
    try {
      await client.cancelQuote(held.quoteId);
      this.host.log(`withdraw rfq ${short(held.rfq.rfq_id)} quote ${short(held.quoteId)}: ${why}`);
      this.host.withdrawn({ rfqId: held.rfq.rfq_id, quoteId: held.quoteId, why });
    } catch (error) {
      this.host.log(`withdraw rfq ${short(held.rfq.rfq_id)} refused: ${reason(error)} (it ended first)`);
    }
  }
}
