import WebSocket from 'ws';

/**
 * A JSON answer of our own server, read without a declared type: the bench drives the real
 * exchange and checks what it measures, not the shapes (the e2e tests check those).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one untyped JSON of the bench, named
export type Json = any;

export interface RpcReply {
  jsonrpc: '2.0';
  id: unknown;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

export interface Notification {
  channel: string;
  data: Json;
}

/** A lean JSON-RPC client over one `ws` connection (no reconnects, no batching). */
export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<number, (reply: RpcReply) => void>();
  onNotification: ((n: Notification, at: number) => void) | null = null;
  closed = false;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const value = JSON.parse(data.toString());
      if (value.method === 'subscription') {
        this.onNotification?.(value.params as Notification, Date.now());
        return;
      }
      const resolve = this.pending.get(value.id);
      if (resolve) {
        this.pending.delete(value.id);
        resolve(value);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const [, resolve] of this.pending) resolve({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'connection closed' } });
      this.pending.clear();
    });
    socket.on('error', () => undefined);
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<Rpc> {
    const socket = new WebSocket(url, { headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new Rpc(socket)));
      socket.once('error', reject);
    });
  }

  call(method: string, params?: unknown): Promise<RpcReply> {
    const id = this.nextId++;
    const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) envelope.params = params;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.socket.send(JSON.stringify(envelope));
    });
  }

  /** The result, or throws with the error (code, data.error). */
  async result<T = Json>(method: string, params?: unknown): Promise<T> {
    const reply = await this.call(method, params);
    if (reply.error) {
      const name = reply.error.data?.error ?? reply.error.code;
      throw Object.assign(new Error(`${method}: ${String(name)} ${reply.error.message}`), { reply });
    }
    return reply.result as T;
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
