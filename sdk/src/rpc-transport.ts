import type { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { LegworkClientEvents, LegworkClientOptions, ReconnectOptions } from './client-options';
import { ConnectionError, TimeoutError, rpcErrorFrom } from './errors';
import type { AuthResult } from './types';

interface Entry {
  method: string;
  params: Record<string, unknown> | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | null;
  id: number | null;
  settled: boolean;
}

interface Frame {
  entries: Entry[];
  batch: boolean;
}

/** What the transport needs from the client around it. */
export interface TransportHost {
  /** Where the connection's events are emitted (the client itself). */
  readonly events: EventEmitter<LegworkClientEvents>;
  /** A new socket is open (`seq` counts per connection). */
  onOpen(): void;
  /** A `subscription` message's `params`. */
  onNotification(params: unknown): void;
  /** On a reconnected socket, before queued requests go out: the session and the subscriptions back. */
  restore(): Promise<AuthResult | null>;
  /** The client is closed for good: the iterators end. */
  onShutDown(): void;
}

/**
 * The connection under {@link LegworkClient}: one WebSocket at a time, JSON-RPC request/response
 * matching with a per-request timeout, batches, a heartbeat, and the reconnection loop (requests
 * made while reconnecting wait for it, within their timeout).
 */
export class RpcTransport {
  private url: string | null = null;
  private socket: WebSocket | null = null;
  private ready = false;
  private closedForGood = false;
  private reconnecting = false;
  private nextId = 1;
  private readonly pending = new Map<number, Entry>();
  private readonly waiting: Frame[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnectTimer: { timer: NodeJS.Timeout; wake: () => void } | null = null;
  private readonly requestTimeoutMs: number;
  private readonly reconnect: Required<ReconnectOptions> | null;
  private readonly heartbeatMs: number;

  constructor(
    private readonly options: LegworkClientOptions,
    private readonly host: TransportHost,
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    const r = options.reconnect ?? true;
    this.reconnect =
      r === false
        ? null
        : {
            initialDelayMs: 250,
            maxDelayMs: 10_000,
            factor: 2,
            jitter: 0.2,
            maxAttempts: Number.POSITIVE_INFINITY,
            ...(r === true ? {} : r),
          };
  }

  get connected(): boolean {
    return this.ready;
  }

  get closed(): boolean {
    return this.closedForGood;
  }

  async connect(url: string): Promise<void> {
    if (this.closedForGood) throw new ConnectionError('the client is closed');
    if (this.url !== null) throw new ConnectionError('connect() was called already');
    this.url = url;
    try {
      await this.openSocket();
    } catch (error) {
      this.url = null;
      throw error;
    }
    this.markReady();
  }

  /** One request; `internal` ones go out on the socket being restored, the others wait until it is ready. */
  request<T>(method: string, params: Record<string, unknown> | undefined, internal: boolean, timeoutMs?: number): Promise<T> {
    const [entry, promise] = this.entry<T>(method, params, timeoutMs);
    this.submit({ entries: [entry], batch: false }, internal);
    return promise;
  }

  /** Several requests in one frame (a JSON-RPC batch): one promise per request, in order. */
  batch(requests: { method: string; params?: Record<string, unknown> }[], timeoutMs?: number): Promise<unknown>[] {
    const pairs = requests.map((r) => this.entry(r.method, r.params, timeoutMs));
    this.submit({ entries: pairs.map(([e]) => e), batch: true }, false);
    return pairs.map(([, p]) => p);
  }

  private entry<T>(method: string, params: Record<string, unknown> | undefined, timeoutMs = this.requestTimeoutMs): [Entry, Promise<T>] {
    let entry!: Entry;
    const promise = new Promise<T>((resolve, reject) => {
      entry = { method, params, resolve: resolve as (v: unknown) => void, reject, timer: null, id: null, settled: false };
    });
    entry.timer = setTimeout(() => {
      if (entry.id !== null) this.pending.delete(entry.id);
      this.settle(entry, new TimeoutError(method, timeoutMs));
    }, timeoutMs);
    return [entry, promise];
  }

  private settle(entry: Entry, error: Error | null, result?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    if (entry.timer) clearTimeout(entry.timer);
    if (error) entry.reject(error);
    else entry.resolve(result);
  }

  /** Sends now when ready (or when `internal`, on the socket being restored), else queues for the reconnection. */
  private submit(frame: Frame, internal: boolean): void {
    if (this.closedForGood) {
      for (const e of frame.entries) this.settle(e, new ConnectionError('the client is closed', e.method));
      return;
    }
    if (internal || this.ready) {
      this.transmit(frame);
      return;
    }
    if (this.url === null) {
      for (const e of frame.entries) this.settle(e, new ConnectionError('not connected: call connect() first', e.method));
      return;
    }
    this.waiting.push(frame);
  }

  private transmit(frame: Frame): void {
    const live = frame.entries.filter((e) => !e.settled);
    if (live.length === 0) return;
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      for (const e of live) this.settle(e, new ConnectionError('not connected', e.method));
      return;
    }
    const envelopes = live.map((e) => {
      e.id = this.nextId++;
      this.pending.set(e.id, e);
      const envelope: Record<string, unknown> = { jsonrpc: '2.0', id: e.id, method: e.method };
      if (e.params !== undefined) envelope.params = e.params;
      return envelope;
    });
    socket.send(JSON.stringify(frame.batch ? envelopes : envelopes[0]), (error) => {
      if (!error) return;
      for (const e of live) {
        if (e.id !== null) this.pending.delete(e.id);
        this.settle(e, new ConnectionError(`send failed: ${error.message}`, e.method));
      }
    });
  }

  private onMessage(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'object' || item === null) continue;
      const message = item as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
      if (message.method === 'subscription') this.host.onNotification(message.params);
      else if (typeof message.id === 'number') this.onReply(message.id, message);
    }
  }

  private onReply(id: number, reply: { result?: unknown; error?: unknown }): void {
    const entry = this.pending.get(id);
    if (!entry) return; // timed out already
    this.pending.delete(id);
    if (reply.error !== undefined && reply.error !== null) this.settle(entry, rpcErrorFrom(reply.error, entry.method));
    else this.settle(entry, null, reply.result);
  }

  /** Closes the connection for good: pending requests reject with `ConnectionError`, iterators end. */
  async close(): Promise<void> {
    if (this.closedForGood) return;
    this.closedForGood = true;
    this.ready = false;
    this.reconnectTimer?.wake();
    this.stopHeartbeat();
    const socket = this.socket;
    this.socket = null;
    this.failAll(new ConnectionError('the client is closed'));
    this.host.onShutDown();
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          socket.terminate();
          resolve();
        }, 1000);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.close(1000, 'client closed');
      });
    }
    this.host.events.emit('closed');
  }

  private openSocket(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(this.url!, this.options.wsOptions);
      let opened = false;
      socket.on('open', () => {
        opened = true;
        if (this.closedForGood) {
          socket.terminate();
          reject(new ConnectionError('the client is closed'));
          return;
        }
        this.socket = socket;
        this.host.onOpen();
        this.startHeartbeat(socket);
        resolve();
      });
      socket.on('message', (data) => {
        if (socket === this.socket) this.onMessage(data.toString());
      });
      socket.on('error', (error) => {
        if (!opened) reject(new ConnectionError(`cannot connect to ${this.url}: ${error.message}`));
      });
      socket.on('close', (code, reason) => {
        if (!opened) {
          reject(new ConnectionError(`cannot connect to ${this.url}: closed with ${code}`));
          return;
        }
        this.onClose(socket, code, reason.toString());
      });
    });
  }

  private onClose(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    this.stopHeartbeat();
    for (const entry of this.pending.values()) this.settle(entry, new ConnectionError(`connection closed (${code}) before the reply`, entry.method));
    this.pending.clear();
    this.host.events.emit('disconnected', { code, reason });
    if (this.closedForGood || this.reconnecting) return; // close(), or the reconnection loop sees the failure itself
    if (!this.reconnect) {
      this.shutDown(new ConnectionError(`connection closed (${code})`));
      return;
    }
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    const r = this.reconnect!;
    this.reconnecting = true;
    try {
      for (let attempt = 1; !this.closedForGood; attempt++) {
        if (attempt > r.maxAttempts) {
          this.shutDown(new ConnectionError(`gave up reconnecting after ${r.maxAttempts} attempts`));
          return;
        }
        const base = Math.min(r.maxDelayMs, r.initialDelayMs * r.factor ** (attempt - 1));
        const delayMs = Math.round(base * (1 - r.jitter * Math.random()));
        this.host.events.emit('reconnecting', { attempt, delayMs });
        await this.sleep(delayMs);
        if (this.closedForGood) return;
        try {
          await this.openSocket();
          const session = await this.host.restore();
          if (this.closedForGood) return;
          this.markReady();
          this.host.events.emit('reconnected', { attempt, session });
          return;
        } catch {
          const socket = this.socket;
          this.socket = null;
          this.stopHeartbeat();
          socket?.terminate();
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  private markReady(): void {
    this.ready = true;
    const frames = this.waiting.splice(0);
    for (const frame of frames) this.transmit(frame);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.reconnectTimer = null;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.reconnectTimer = { timer, wake };
    });
  }

  private startHeartbeat(socket: WebSocket): void {
    this.stopHeartbeat();
    if (this.heartbeatMs <= 0) return;
    let alive = true;
    const mark = () => (alive = true);
    socket.on('pong', mark);
    socket.on('ping', mark);
    socket.on('message', mark);
    this.heartbeat = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      try {
        socket.ping();
      } catch {
        /* closing */
      }
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private failAll(error: ConnectionError): void {
    for (const entry of this.pending.values()) this.settle(entry, new ConnectionError(error.message, entry.method));
    this.pending.clear();
    for (const frame of this.waiting.splice(0)) for (const e of frame.entries) this.settle(e, new ConnectionError(error.message, e.method));
  }

  /** The connection is gone for good (no reconnection): fail everything, end iterators. */
  private shutDown(error: ConnectionError): void {
    if (this.closedForGood) return;
    this.closedForGood = true;
    this.ready = false;
    this.failAll(error);
    this.host.onShutDown();
    this.host.events.emit('closed');
  }
}
