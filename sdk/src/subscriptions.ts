import type { EventEmitter } from 'node:events';
import { SUBSCRIBE_METHODS } from '@legwork/protocol';
import type { LegworkClientEvents } from './client-options';
import { LegworkRpcError } from './errors';
import type { RpcTransport } from './rpc-transport';
import type { Channel, SubscribeResult } from './types';

interface Sink {
  buffer: unknown[];
  waiter: ((result: IteratorResult<never>) => void) | null;
  done: boolean;
}

/** The client's counters and events that notifications feed. */
export interface NotificationHost extends EventEmitter<LegworkClientEvents> {
  gaps: number;
  missedNotifications: number;
}

/**
 * The subscription side of {@link LegworkClient}: the channels subscribed, the last `account_seq`
 * delivered on each (so that a re-subscribe replays from there, nothing twice), `seq` gap
 * detection and the notification iterators.
 */
export class Subscriptions {
  private lastSeq = 0;
  /** The last account_seq handed to the application, per channel: the `since` of a re-subscribe (docs/spec/design.md 13). */
  private readonly lastAccountSeq = new Map<Channel, number>();
  private readonly channels = new Set<Channel>();
  private readonly sinks = new Map<string, Set<Sink>>();

  constructor(
    private readonly host: NotificationHost,
    private readonly transport: RpcTransport,
  ) {}

  get subscribed(): Channel[] {
    return [...this.channels];
  }

  lastDelivered(channel: Channel): number | undefined {
    return this.lastAccountSeq.get(channel);
  }

  /** A new connection: `seq` counts per connection. */
  resetSeq(): void {
    this.lastSeq = 0;
  }

  async subscribe(channel: Channel, since: number | undefined): Promise<SubscribeResult> {
    if (since !== undefined) this.lastAccountSeq.set(channel, since);
    const result = await this.transport.request<SubscribeResult>(SUBSCRIBE_METHODS[channel], since === undefined ? {} : { since }, false);
    this.channels.add(channel);
    if (since === undefined && typeof result.account_seq === 'number')
      this.lastAccountSeq.set(channel, Math.max(this.lastAccountSeq.get(channel) ?? 0, result.account_seq));
    return result;
  }

  /**
   * On a fresh connection, after the session: every channel again from its last event delivered.
   * A connection failure throws; a refusal by the server is reported with `resumeError`.
   */
  async resubscribe(): Promise<void> {
    for (const channel of [...this.channels]) {
      // From the last event delivered: what was sent while away is replayed, nothing twice.
      const since = this.lastAccountSeq.get(channel);
      try {
        await this.transport.request(SUBSCRIBE_METHODS[channel], since === undefined ? {} : { since }, true);
      } catch (error) {
        if (!(error instanceof LegworkRpcError)) throw error;
        this.host.emit('resumeError', error);
        // Older than the stored events (7 days): live from now; the application re-reads its state.
        const live =
          since === undefined
            ? null
            : await this.transport.request<SubscribeResult>(SUBSCRIBE_METHODS[channel], {}, true).catch((e: Error) => {
                if (!(e instanceof LegworkRpcError)) throw e;
                return null;
              });
        if (live) this.lastAccountSeq.set(channel, live.account_seq);
        else this.channels.delete(channel);
      }
    }
  }

  onNotification(params: unknown): void {
    if (typeof params !== 'object' || params === null) return;
    const { channel, data } = params as { channel?: unknown; data?: unknown };
    if (typeof channel !== 'string' || typeof data !== 'object' || data === null) return;
    const seq = (data as { seq?: unknown }).seq;
    if (typeof seq === 'number') {
      const expected = this.lastSeq + 1;
      if (seq > expected) {
        this.host.gaps += 1;
        this.host.missedNotifications += seq - expected;
        this.host.emit('gap', { channel, expected, received: seq, missed: seq - expected });
      }
      if (seq > this.lastSeq) this.lastSeq = seq;
    }
    const accountSeq = (data as { account_seq?: unknown }).account_seq;
    if (typeof accountSeq === 'number' && (channel === 'rfq' || channel === 'rfq_maker')) {
      // Delivered already (a replay overlapping what came before the reconnection): once only.
      const last = this.lastAccountSeq.get(channel);
      if (last !== undefined && accountSeq <= last) return;
      this.lastAccountSeq.set(channel, accountSeq);
    }
    this.host.emit('notification', channel, data as Record<string, unknown>);
    for (const sink of this.sinks.get(channel) ?? []) {
      if (sink.waiter) {
        const waiter = sink.waiter;
        sink.waiter = null;
        waiter({ value: data as never, done: false });
      } else {
        sink.buffer.push(data);
      }
    }
  }

  /** An iterator over a channel's notifications from now on (see `LegworkClient.notifications`). */
  iterate(channel: string, signal: AbortSignal | undefined): AsyncIterableIterator<unknown> {
    const sink: Sink = { buffer: [], waiter: null, done: this.transport.closed };
    let set = this.sinks.get(channel);
    if (!set) this.sinks.set(channel, (set = new Set()));
    set.add(sink);
    const end = (): IteratorResult<never> => {
      sink.done = true;
      this.sinks.get(channel)?.delete(sink);
      const waiter = sink.waiter;
      sink.waiter = null;
      waiter?.({ value: undefined as never, done: true });
      return { value: undefined as never, done: true };
    };
    if (signal) {
      if (signal.aborted) end();
      else signal.addEventListener('abort', () => end(), { once: true });
    }
    const iterator: AsyncIterableIterator<unknown> = {
      [Symbol.asyncIterator]: () => iterator,
      next: () => {
        if (sink.buffer.length > 0) return Promise.resolve({ value: sink.buffer.shift(), done: false });
        if (sink.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<unknown>>((resolve) => (sink.waiter = resolve));
      },
      return: () => Promise.resolve(end()),
    };
    return iterator;
  }

  /** The client is closed: every iterator ends. */
  endAll(): void {
    for (const set of this.sinks.values()) {
      for (const sink of set) {
        sink.done = true;
        const waiter = sink.waiter;
        sink.waiter = null;
        waiter?.({ value: undefined as never, done: true });
      }
    }
    this.sinks.clear();
  }
}
