import type { Channel } from '../../common/broadcast/notifier';
import type { EventSource, ReplayTicket, StreamEvent } from '../../common/rpc/event-source';
import { RfqError } from '../../common/errors/app-error';
import { ReplayAllowance } from './replay-allowance';

/** A governed replay sends at most this many events, then yields the event loop to live traffic. */
const CHUNK = 32;

/** `since` is not a number the account's stored events can continue from. */
export class SinceOutOfRange extends Error {}

/** At most this many events a page (docs/spec/design.md section 16). */
const PAGE = 1000;
/**
 * A replay's first page is this small, and each next one FIRST_PAGE_GROWTH times the one before
 * up to PAGE: the first events go out after a short read instead of a whole page's.
 */
const FIRST_PAGE = 100;
const FIRST_PAGE_GROWTH = 4;
/** Pages of a replay read ahead of the one being sent, at most (each holds a pooled connection while read). */
const READ_AHEAD = 2;

/**
 * The account events of one connection, in account_seq order, each once (docs/spec/design.md 13).
 *
 * Numbers count both channels of the account: `cursor` is the last number handled, sent when its
 * channel is subscribed and skipped otherwise. Live events are taken in as soon as a subscribe
 * starts (before it reads anything), held while a replay runs, and released in order after it:
 * an event that commits during the replay is in the replay, or live, or both, and the cursor lets
 * it through once. A live event that arrives ahead of a missing number (the broadcasts of two
 * commits can cross on the way, or one can be lost with Redis) waits `gapWaitMs` for it, then the
 * gap is read from the database.
 */
export class EventStream {
  private cursor: number | null = null;
  private readonly held = new Map<number, StreamEvent>();
  /** Replays and gap reads running: live events are held, not released. */
  private busy = 0;
  private gapTimer: NodeJS.Timeout | null = null;
  private readonly channels = new Set<Channel>();
  /** Channels whose replay (a subscribe with since) is running: one at a time each (docs/spec/design.md section 16). */
  private readonly replaying = new Set<Channel>();
  /** The connection closed: nothing more is read or sent. */
  private closed = false;

  constructor(
    private readonly source: EventSource,
    private readonly send: (channel: Channel, data: StreamEvent['data']) => void,
    private readonly gapWaitMs = 250,
    /** Resolves when the connection's socket has room again (its unsent data below a high-water mark). */
    private readonly drained: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** A live event of the account (from any instance's broadcast). */
  live(event: StreamEvent): void {
    if (this.closed || (this.cursor === null && this.busy === 0)) return;
    if (this.cursor !== null && event.accountSeq <= this.cursor) return;
    this.held.set(event.accountSeq, event);
    if (this.busy === 0) this.release();
  }

  /**
   * Subscribes `channel`: with `since`, first every stored event of the channel after it, then the
   * live ones. The latest account_seq at the time of the call.
   */
  async open(channel: Channel, since: number | null): Promise<number> {
    // A second replay of the channel would read the same days again beside the first: refused, not queued.
    if (since !== null && this.replaying.has(channel)) {
      throw new RfqError('RFQ_STATE_CONFLICT', `a replay of channel ${channel} is running on this connection: subscribe with since again after its answer`, {
        reason: 'replay_running',
      });
    }
    if (since !== null) this.replaying.add(channel);
    this.busy += 1;
    let ticket: ReplayTicket | null = null;
    try {
      const { latest, oldest } = await this.source.bounds();
      if (this.closed) return latest;
      if (since !== null && since > latest) throw new SinceOutOfRange(`since ${since} is after the account's latest account_seq ${latest}`);
      // Everything after `since` must still be stored: the oldest stored number is at most since + 1.
      if (since !== null && since < latest && (oldest === null || oldest > since + 1)) {
        throw new SinceOutOfRange(
          `since ${since} is older than the stored events (kept 7 days); the oldest stored account_seq is ${oldest ?? 'none'}: re-read the state with rfq.list and subscribe without since`,
        );
      }
      // Only a subscribe with something to replay takes a replay's slot and budget (docs/spec/design.md section 20).
      const upTo = this.cursor ?? latest;
      ticket = since !== null && since < upTo && this.source.admit ? await this.source.admit() : null;
      if (this.closed) return latest;
      const allowance = ticket ? new ReplayAllowance(ticket) : null;
      if (this.cursor === null) {
        // The first channel: the stream starts at `since` (or now) and replays up to `latest`.
        this.channels.add(channel);
        this.cursor = since ?? latest;
        await this.replay(this.cursor, latest, allowance);
      } else {
        await this.join(channel, since ?? this.cursor, allowance);
      }
      return latest;
    } catch (error) {
      if (this.channels.size === 0) {
        this.cursor = null;
        this.held.clear();
      }
      throw error;
    } finally {
      ticket?.release();
      if (since !== null) this.replaying.delete(channel);
      this.busy -= 1;
      if (this.busy === 0) this.release();
    }
  }

  /**
   * Sends the stored events after `from` up to `latest` through `handle`, in pages of PAGE
   * numbers. Numbers have no gap, so each page's bounds are known before any page is read: the
   * next READ_AHEAD pages are being read while one is sent, and the database's and the driver's
   * time hides behind the sending; so does the lease of the next page's budget. A page that does
   * not continue the cursor (its events were pruned meanwhile) ends the replay: the gap read takes
   * over, as for a live event.
   */
  private async replay(from: number, latest: number, allowance: ReplayAllowance | null): Promise<void> {
    const reads: Array<{ events: Promise<StreamEvent[]>; count: number }> = [];
    let requested = from;
    let size = Math.min(FIRST_PAGE, PAGE);
    const readNext = () => {
      if (requested >= latest || this.closed) return;
      const upTo = Math.min(requested + size, latest);
      reads.push({ events: this.source.range(requested, upTo, size), count: upTo - requested });
      requested = upTo;
      size = Math.min(size * FIRST_PAGE_GROWTH, PAGE);
    };
    try {
      for (let i = 0; i < READ_AHEAD; i++) readNext();
      // The first page's budget is leased while the page is read.
      allowance?.ahead(reads[0]?.count ?? 0);
      let read: { events: Promise<StreamEvent[]> } | undefined;
      while ((read = reads.shift()) !== undefined) {
        const page = await read.events;
        // The connection closed: the replay stops here, with no further page asked for.
        if (this.closed) break;
        readNext();
        const at = this.cursor;
        await this.paced(page, allowance, (event) => this.handle(event), reads[0]?.count ?? 0);
        if (this.cursor === at) break;
      }
    } finally {
      // Reads left behind by a stop or a failure: their outcome is not wanted.
      for (const read of reads) read.events.catch(() => undefined);
    }
  }

  /** The other channel joins a running stream: its own events after `after` up to the cursor, then live with the rest. */
  private async join(channel: Channel, after: number, allowance: ReplayAllowance | null): Promise<void> {
    const upTo = this.cursor!;
    while (after < upTo && !this.closed) {
      const page = await this.source.range(after, upTo, PAGE);
      if (page.length === 0) break;
      await this.paced(page, allowance, (event) => {
        if (event.channel === channel) this.send(channel, event.data);
      });
      after = page[page.length - 1].accountSeq;
    }
    this.channels.add(channel);
  }

  /**
   * Hands `page` to `each`. Governed (an allowance): only events granted by the replay budgets go
   * out, leased by the page rather than per chunk (the account's bucket is a Redis round trip: per
   * chunk it cost more than the sending), and `nextCount` events of the next page are leased
   * while this one goes out. They go out CHUNK at a time, the event loop yielded and the socket
   * allowed to drain after each, so that live traffic of every connection goes first
   * (docs/spec/design.md section 20). A partial grant (a budget nearly spent) is sent, then the
   * rest of the page waits for the next one.
   */
  private async paced(page: StreamEvent[], allowance: ReplayAllowance | null, each: (event: StreamEvent) => void, nextCount = 0): Promise<void> {
    if (!allowance) {
      for (const event of page) each(event);
      return;
    }
    let i = 0;
    while (i < page.length && !this.closed) {
      const granted = await allowance.take(Math.min(CHUNK, page.length - i), page.length - i);
      if (this.closed || granted === 0) return;
      allowance.ahead(nextCount);
      allowance.spend(granted);
      for (const end = i + granted; i < end; i++) each(page[i]);
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.drained();
    }
  }

  /** The connection closed (or its sign-in ended): a running replay stops, the gap timer too. */
  close(): void {
    this.closed = true;
    this.held.clear();
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }

  private handle(event: StreamEvent): void {
    if (this.closed || this.cursor === null || event.accountSeq !== this.cursor + 1) return;
    this.cursor = event.accountSeq;
    if (this.channels.has(event.channel)) this.send(event.channel, event.data);
  }

  /** Releases held events that continue the cursor; a hole left waits for the gap read. */
  private release(): void {
    if (this.cursor === null) return;
    for (const seq of this.held.keys()) if (seq <= this.cursor) this.held.delete(seq);
    let next: StreamEvent | undefined;
    while ((next = this.held.get(this.cursor + 1)) !== undefined) {
      this.held.delete(next.accountSeq);
      this.handle(next);
    }
    if (this.held.size > 0) this.scheduleGapRead();
  }

  private scheduleGapRead(): void {
    if (this.gapTimer) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      void this.readGap();
    }, this.gapWaitMs);
    this.gapTimer.unref?.();
  }

  private async readGap(): Promise<void> {
    if (this.closed || this.busy > 0 || this.cursor === null || this.held.size === 0) return;
    const upTo = Math.min(...this.held.keys()) - 1;
    this.busy += 1;
    try {
      for (const event of await this.source.range(this.cursor, upTo, PAGE)) this.held.set(event.accountSeq, event);
    } catch {
      // The next live event, or the next timer, tries again.
    } finally {
      this.busy -= 1;
      this.release();
    }
  }
}
