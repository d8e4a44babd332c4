import type { WebSocket } from 'ws';
import type { Channel } from '../../common/broadcast/notifier';
import type { Principal } from '../auth/access';
import { type EventSource, EventStream, type StreamEvent } from './event-stream';
import { frameText } from './json-rpc';
import type { CallerState } from './rpc-dispatcher';

const CHANNEL_BIT: Record<Channel, number> = { rfq: 1, rfq_maker: 2 };

/** Past this much unsent data the client is a slow consumer and is cut off (design.md section 4). */
export const SLOW_CONSUMER_BYTES = 1024 * 1024;

/** The TCP socket under a ws WebSocket (ws keeps it as `_socket`; absent in tests with fake sockets). */
type Corkable = { cork(): void; uncork(): void };

/**
 * At most this many frames are held before they are written: after a stall, a backlog of requests
 * is answered in writes of this many replies, so the first reply does not wait for the last.
 */
const MAX_HELD_FRAMES = 32;

/** One WebSocket client: its sign-in, its subscriptions, its notification sequence. */
export class ClientConnection implements CallerState {
  principal: Principal | null = null;
  /** The account the gateway filed this connection under (its own bookkeeping). */
  indexedAccount: number | null = null;
  /** Subscribed channels as bits (a Set per idle connection costs more than the socket's own state). */
  private channelBits = 0;
  missedPongs = 0;
  private seq = 0;
  /** Frames held (corked) in this turn of the event loop, written together at its end; 0: not corked. */
  private held = 0;
  /** The account's event stream, from the first subscribe (design.md 13). */
  private stream: EventStream | null = null;

  constructor(
    readonly socket: WebSocket,
    readonly clientIp: string,
    private readonly onChange: (connection: ClientConnection) => void,
  ) {}

  signIn(principal: Principal): void {
    if (this.stream && principal.accountId !== this.accountId) {
      // Subscriptions are the account's that made them: signing in as another account ends them.
      this.stream.close();
      this.stream = null;
      this.channelBits = 0;
    }
    this.principal = principal;
    this.onChange(this);
  }

  subscribe(channel: Channel): void {
    this.channelBits |= CHANNEL_BIT[channel];
    this.onChange(this);
  }

  async openStream(channel: Channel, since: number | null, source: EventSource): Promise<number> {
    this.stream ??= new EventStream(source, (c, data) => this.notify(c, data));
    const latest = await this.stream.open(channel, since);
    this.subscribe(channel);
    return latest;
  }

  /** A live account event (it carries account_seq): through the stream, which orders and dedupes. */
  liveEvent(event: StreamEvent): void {
    this.stream?.live(event);
  }

  closeStream(): void {
    this.stream?.close();
  }

  subscribed(channel: Channel): boolean {
    return (this.channelBits & CHANNEL_BIT[channel]) !== 0;
  }

  get accountId(): number | null {
    return this.principal?.accountId ?? null;
  }

  /** Sends a JSON value; false (and the connection is cut) when the client is not keeping up. */
  send(value: unknown): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount > SLOW_CONSUMER_BYTES) {
      this.socket.terminate();
      return false;
    }
    this.holdUntilEndOfTurn();
    this.socket.send(frameText(value));
    return true;
  }

  /**
   * The replies to a pipelined batch of frames, and the notifications of one broadcast, are sent
   * in the same turn of the event loop: corking the socket writes them in one system call (one
   * `writev`) instead of one each, MAX_HELD_FRAMES at a time. Uncorked before the turn ends: no
   * frame waits for a later turn.
   */
  private holdUntilEndOfTurn(): void {
    const tcp = (this.socket as unknown as { _socket?: Corkable })._socket;
    if (!tcp) return;
    if (this.held > 0) {
      if (++this.held <= MAX_HELD_FRAMES) return;
      tcp.uncork(); // write what is held, keep holding
      tcp.cork();
      this.held = 1;
      return;
    }
    this.held = 1;
    tcp.cork();
    process.nextTick(() => {
      this.held = 0;
      tcp.uncork();
    });
  }

  /** A subscription notification with this connection's next `seq`. */
  notify(channel: Channel, data: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method: 'subscription', params: { channel, data: { seq: ++this.seq, ...data } } });
  }
}
