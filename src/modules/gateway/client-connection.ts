import type { WebSocket } from 'ws';
import type { Channel } from '../../common/broadcast/notifier';
import { connectionIdOf, nextConnection } from '../../common/logging/trace-ids';
import type { Lapse, Principal } from '../../common/access/access';
import { EventStream } from './event-stream';
import type { EventSource, StreamEvent } from '../../common/rpc/event-source';
import { JsonText } from '../../common/rpc/json-text';
import { frameText } from './json-rpc';
import type { CallerState } from './rpc-dispatcher';

const CHANNEL_BIT: Record<Channel, number> = { rfq: 1, rfq_maker: 2 };
export const CHANNELS = Object.keys(CHANNEL_BIT) as Channel[];

const settled = (): void => undefined;

/** Requests of one connection being handled at once; over it a request is refused at once (1005). */
export const MAX_IN_FLIGHT = 64;

/** Past this much unsent data the client is a slow consumer and is cut off (docs/spec/design.md section 4). */
const SLOW_CONSUMER_BYTES = 1024 * 1024;
/** A replay sends no more while the socket holds this much unsent data (a quarter of the slow-consumer limit). */
const REPLAY_HIGH_WATER = SLOW_CONSUMER_BYTES / 4;
/** How long a slow consumer's socket may hold its unsent data and close frame before it is cut. */
const SLOW_CONSUMER_GRACE_MS = 5000;

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
  /** The account's event stream, from the first subscribe (docs/spec/design.md 13). */
  private stream: EventStream | null = null;
  /** Requests received and not yet answered (MAX_IN_FLIGHT). */
  inFlight = 0;
  /** The last of this connection's ordered calls still running (null: none), see `inOrder`. */
  private orderedTail: Promise<unknown> | null = null;
  /** This connection's number (its id on log lines is written from it only when a line is). */
  private readonly number = nextConnection();

  constructor(
    readonly socket: WebSocket,
    readonly clientIp: string,
    private readonly onChange: (connection: ClientConnection) => void,
  ) {}

  /**
   * Runs `task` once every ordered call received before it on this connection is answered, so
   * that a maker's pipelined responds are decided in the order they arrived (docs/spec/design.md
   * section 19). Starts at once when none is running. A task's failure is its own.
   */
  inOrder<T>(task: () => Promise<T>): Promise<T> {
    const run = this.orderedTail ? this.orderedTail.then(task, task) : task();
    const tail = run.then(settled, settled);
    this.orderedTail = tail;
    void tail.then(() => {
      if (this.orderedTail === tail) this.orderedTail = null;
    });
    return run;
  }

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
    // Events reach the client only on channels it is still subscribed to (a role change drops one).
    this.stream ??= new EventStream(
      source,
      (c, data) => {
        if (this.subscribed(c)) this.notify(c, data);
      },
      undefined,
      () => this.drained(),
    );
    // Subscribed before the replay starts, so the filter above lets the replayed events through.
    const was = this.subscribed(channel);
    this.subscribe(channel);
    try {
      return await this.stream.open(channel, since);
    } catch (error) {
      if (!was) this.unsubscribe(channel);
      throw error;
    }
  }

  /**
   * Resolves once the socket's unsent data is below REPLAY_HIGH_WATER (or the socket is gone): a
   * replay waits here instead of growing the buffer toward the slow-consumer cut.
   */
  private async drained(): Promise<void> {
    while (this.socket.readyState === this.socket.OPEN && this.socket.bufferedAmount > REPLAY_HIGH_WATER) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** A live account event (it carries account_seq): through the stream, which orders and dedupes. */
  liveEvent(event: StreamEvent): void {
    this.stream?.live(event);
  }

  closeStream(): void {
    this.stream?.close();
    this.stream = null;
  }

  unsubscribe(channel: Channel): void {
    this.channelBits &= ~CHANNEL_BIT[channel];
  }

  /**
   * The sign-in ended (its token's `exp`, or a revoke): the connection is as before sign-in, its
   * subscriptions (and its event stream) dropped, and it is told why (docs/spec/design.md section 10).
   */
  lapse(reason: Lapse): void {
    if (!this.principal) return;
    this.principal = null;
    this.channelBits = 0;
    this.closeStream();
    this.onChange(this);
    this.notify('session', { event: reason });
  }

  subscribed(channel: Channel): boolean {
    return (this.channelBits & CHANNEL_BIT[channel]) !== 0;
  }

  get connectionId(): string {
    return connectionIdOf(this.number);
  }

  get accountId(): number | null {
    return this.principal?.accountId ?? null;
  }

  /**
   * Sends a JSON value; false when the client is not keeping up: a frame that would take the
   * unsent buffer past SLOW_CONSUMER_BYTES closes the connection (1008) instead of being queued.
   */
  send(value: unknown): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    return this.sendText(frameText(value));
  }

  /** send() of a frame already serialized. */
  private sendText(text: string): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    const buffered = this.socket.bufferedAmount;
    // text.length is a lower bound of the UTF-8 size and 3x an upper one: measured only near the limit.
    if (buffered + text.length * 3 > SLOW_CONSUMER_BYTES && buffered + Buffer.byteLength(text) > SLOW_CONSUMER_BYTES) {
      this.socket.close(1008, 'slow consumer');
      // The close frame waits behind the unsent data of a client that does not read: cut it.
      const cut = setTimeout(() => this.socket.terminate(), SLOW_CONSUMER_GRACE_MS);
      cut.unref?.();
      return false;
    }
    this.holdUntilEndOfTurn();
    this.socket.send(text);
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

  /**
   * A subscription notification with this connection's next `seq`:
   * `{ jsonrpc, method, params: { channel, data: { seq, ...data } } }`. `shared`: the same `data`
   * goes to many connections (a broadcast), so its JSON is made once per broadcast (dataTail)
   * rather than once per subscriber; an account's own events (one or a few connections, and
   * replays of thousands of distinct objects) are serialized directly, without the cache's entry.
   * Either way only `data` goes through JSON.stringify: the frame around it is the same text for
   * every notification, so no copy of `data` with `seq` in front is built per event (F9 replays).
   */
  notify(channel: Channel | 'session', data: Record<string, unknown> | JsonText<Record<string, unknown>>, shared = false): void {
    const seq = ++this.seq;
    const text = data instanceof JsonText;
    if (!text && Object.prototype.hasOwnProperty.call(data, 'seq')) {
      this.send({ jsonrpc: '2.0', method: 'subscription', params: { channel, data: { seq, ...data } } });
      return;
    }
    // Data already JSON (a replayed event PostgreSQL rendered) goes in as it is.
    const tail = text ? membersOfText(data.json) : shared ? dataTail(data) : membersOf(data);
    this.sendText(`{"jsonrpc":"2.0","method":"subscription","params":{"channel":"${channel}","data":{"seq":${seq}${tail}}}`);
  }
}

/** The serialized members of a notification's data, by data object (see dataTail). */
const serializedData = new WeakMap<object, string>();

/**
 * `data`'s JSON after the opening brace, with a leading comma (or just `}` when empty): the part of
 * a notification frame that is the same for every subscriber. A broadcast hands the same data
 * object to each of its subscribers' connections, so with N subscribers it is serialized once, not
 * N times (F10, bench/results/performance.md). Notification data is not changed after it is sent.
 */
function dataTail(data: Record<string, unknown>): string {
  let tail = serializedData.get(data);
  if (tail === undefined) {
    tail = membersOf(data);
    serializedData.set(data, tail);
  }
  return tail;
}

/** `data`'s JSON after the opening brace, with a leading comma (or just `}` when empty). */
function membersOf(data: Record<string, unknown>): string {
  return membersOfText(JSON.stringify(data));
}

/** An object's JSON text after its opening brace, with a leading comma (or just `}` when empty). */
function membersOfText(json: string): string {
  return json === '{}' ? '}' : `,${json.slice(1)}`;
}
