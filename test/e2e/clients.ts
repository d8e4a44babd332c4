import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { publicKeyFromSeed, signEd25519 } from '@legwork/protocol';
import { ADMIN_TOKEN } from './harness';
import { checkResponse } from './support/openapi-responses';
import { checkNotification, checkResult } from './support/rpc-results';

export interface HttpResult<T = any> {
  status: number;
  body: T;
}

/** A client's HTTP calls: JSON in, JSON out, with an optional bearer token and client address. */
export class Http {
  constructor(
    readonly baseUrl: string,
    private readonly defaults: { token?: string; ip?: string } = {},
  ) {}

  as(token: string | undefined): Http {
    return new Http(this.baseUrl, { ...this.defaults, token });
  }

  from(ip: string): Http {
    return new Http(this.baseUrl, { ...this.defaults, ip });
  }

  admin(): Http {
    return this.as(ADMIN_TOKEN);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.defaults.token) h.authorization = `Bearer ${this.defaults.token}`;
    if (this.defaults.ip) h['x-forwarded-for'] = this.defaults.ip;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = await fetch(this.baseUrl + path, { method, headers: h, body: payload });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    // A response the OpenAPI document does not describe fails the test that received it.
    checkResponse(this.baseUrl, method, path, response.status, response.headers.get('content-type'), parsed);
    return { status: response.status, body: parsed };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>('PUT', path, body ?? {});
  }
}

/** A wallet with its ed25519 key (tests sign as a real client would). */
export class TestWallet {
  readonly publicKey: Uint8Array;
  readonly address: string;

  constructor(readonly seed: Uint8Array = randomBytes(32)) {
    this.publicKey = publicKeyFromSeed(seed);
    this.address = bs58.encode(this.publicKey);
  }

  sign(message: Uint8Array | string): Uint8Array {
    return signEd25519(this.seed, typeof message === 'string' ? Buffer.from(message, 'utf8') : message);
  }

  signBase58(message: string): string {
    return bs58.encode(this.sign(message));
  }
}

let ipSeq = 0;
/** A distinct client address per caller, so the per-IP nonce limit of one test does not hit another. */
export function freshIp(): string {
  ipSeq += 1;
  return `10.${(process.pid >> 8) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
}

export interface Notification {
  channel: string;
  data: any;
}

/** A JSON-RPC client over a real `ws` connection. */
export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<unknown, (reply: any) => void>();
  readonly notifications: Notification[] = [];
  private readonly waiters: Array<{ match: (n: Notification) => boolean; resolve: (n: Notification) => void }> = [];
  readonly raw: any[] = [];
  /** Every frame's text as received (to compare frames byte for byte). */
  readonly texts: string[] = [];
  closeCode: number | null = null;
  closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    this.closed = new Promise((resolve) =>
      socket.on('close', (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
    socket.on('message', (data) => {
      const text = data.toString();
      this.texts.push(text);
      const value = JSON.parse(text);
      this.raw.push(value);
      if (Array.isArray(value)) {
        const key = value.map((r) => r.id).join(',');
        this.pending.get(`batch:${key}`)?.(value);
        this.pending.delete(`batch:${key}`);
        return;
      }
      if (value.method === 'subscription') {
        const n = value.params as Notification;
        const waiter = this.waiters.findIndex((w) => w.match(n));
        if (waiter >= 0) this.waiters.splice(waiter, 1)[0].resolve(n);
        else this.notifications.push(n);
        return;
      }
      const resolve = this.pending.get(value.id);
      if (resolve) {
        this.pending.delete(value.id);
        resolve(value);
      } else {
        this.pending.get('__any__')?.(value);
      }
    });
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<RpcClient> {
    // (A handshake that never ends fails in 10 s with its own error, not at the test's time limit.)
    const socket = new WebSocket(url, { headers, handshakeTimeout: 10_000 });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new RpcClient(socket);
  }

  /** Sends a request and returns the whole reply envelope (a result checked against the method's declared result schema). */
  async call(method: string, params?: unknown, id: unknown = this.nextId++): Promise<any> {
    const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) envelope.params = params;
    const reply = await this.send(envelope, id);
    if (reply && typeof reply === 'object' && 'result' in reply) checkResult(method, reply.result);
    return reply;
  }

  /** Sends any JSON text and resolves with the reply carrying `expectId`. */
  send(value: unknown, expectId: unknown): Promise<any> {
    return new Promise((resolve) => {
      this.pending.set(expectId, resolve);
      this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
    });
  }

  /** The next reply whatever its id (for frames whose id the server cannot read). */
  sendRaw(text: string | Buffer): Promise<any> {
    return new Promise((resolve) => {
      this.pending.set('__any__', (reply) => {
        this.pending.delete('__any__');
        resolve(reply);
      });
      this.socket.send(text);
    });
  }

  async batch(requests: any[]): Promise<any[]> {
    const replies = await new Promise<any[]>((resolve) => {
      this.pending.set(`batch:${requests.map((r) => r.id).join(',')}`, resolve);
      this.socket.send(JSON.stringify(requests));
    });
    for (const reply of replies) {
      const request = requests.find((r) => r?.id === reply?.id);
      if (reply && 'result' in reply && typeof request?.method === 'string') checkResult(request.method, reply.result);
    }
    return replies;
  }

  /** The result, or throws with the error envelope. */
  async result(method: string, params?: unknown): Promise<any> {
    const reply = await this.call(method, params);
    if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), { reply });
    return reply.result;
  }

  /** Resolves with the first notification (already received or coming) that matches, checked against its channel's declared events. */
  async next(match: (n: Notification) => boolean = () => true, timeoutMs = 5000): Promise<Notification> {
    const index = this.notifications.findIndex(match);
    const notification =
      index >= 0
        ? this.notifications.splice(index, 1)[0]
        : await new Promise<Notification>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('no matching notification in time')), timeoutMs);
            this.waiters.push({ match, resolve: (n) => (clearTimeout(timer), resolve(n)) });
          });
    checkNotification(notification.channel, notification.data);
    return notification;
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await this.closed;
  }
}
