/**
 * The desk's JSON-RPC over the trading WebSocket (`/client`, docs/spec/interface.md): the
 * competition pages call the RFQ methods as the taker or maker they are about, with that account's
 * session, never with the operator's token (the admin routes do not show quotes or transcripts,
 * and `rfq.transcript` is the taker's alone). One connection per desk session, signed in with
 * `public/session_resume`; requests by id, notifications ignored (the pages poll, as the rest of
 * the console does).
 */

const DESK_KEY = 'legwork.console.desk';

/** The desk session of this tab (a taker's or a maker's session token); sessionStorage: gone with the tab. */
export const deskToken = {
  get: () => sessionStorage.getItem(DESK_KEY),
  set: (value: string) => (sessionStorage.setItem(DESK_KEY, value), closeDesk()),
  clear: () => (sessionStorage.removeItem(DESK_KEY), closeDesk()),
};

/** A JSON-RPC error: the code, message and the RFQ error's `data.error` when there is one. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly error: string | null,
  ) {
    super(error ? `${error}: ${message}` : message);
  }
}

interface Reply {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: { error?: string } };
}

class DeskConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  readonly ready: Promise<unknown>;
  private closed: Error | null = null;
  private readonly socket: WebSocket;

  constructor(sessionToken: string) {
    this.socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/client`);
    this.socket.onmessage = (event) => this.onMessage(String(event.data));
    this.socket.onclose = () => this.fail(new Error('the connection closed'));
    const open = new Promise<void>((resolve, reject) => {
      this.socket.onopen = () => resolve();
      this.socket.onerror = () => reject(new Error('the trading WebSocket did not open'));
    });
    this.ready = open.then(() => this.request('public/session_resume', { session_token: sessionToken }));
  }

  private onMessage(text: string) {
    let value: Reply | Reply[];
    try {
      value = JSON.parse(text) as Reply;
    } catch {
      return;
    }
    const replies: Reply[] = Array.isArray(value) ? value : [value];
    for (const reply of replies) {
      const waiter = this.pending.get(reply.id);
      if (!waiter) continue;
      this.pending.delete(reply.id);
      waiter.resolve(reply);
    }
  }

  private fail(error: Error) {
    this.closed = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  async request<T>(method: string, params: unknown): Promise<T> {
    if (this.closed) throw this.closed;
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
    if (reply.error) throw new RpcError(reply.error.code, reply.error.message, reply.error.data?.error ?? null);
    return reply.result as T;
  }

  get isClosed() {
    return this.closed !== null;
  }

  close() {
    this.socket.close();
  }
}

let connection: DeskConnection | null = null;

function closeDesk() {
  connection?.close();
  connection = null;
}

/** Calls a JSON-RPC method with the desk session; reconnects once the connection has closed. */
export async function rpc<T = unknown>(method: string, params: unknown = {}): Promise<T> {
  const sessionToken = deskToken.get();
  if (!sessionToken) throw new Error('no desk session: sign in as a taker or maker first');
  if (!connection || connection.isClosed) connection = new DeskConnection(sessionToken);
  const current = connection;
  try {
    await current.ready;
  } catch (error) {
    if (connection === current) closeDesk();
    throw error;
  }
  return current.request<T>(method, params);
}

/** Signs the desk in: resolves with who the session is (wallet, roles), or throws why not. */
export async function deskSignIn(sessionToken: string): Promise<{ wallet: string; roles: string[]; account_id: number | null }> {
  deskToken.set(sessionToken);
  connection = new DeskConnection(sessionToken);
  try {
    return (await connection.ready) as { wallet: string; roles: string[]; account_id: number | null };
  } catch (error) {
    deskToken.clear();
    throw error;
  }
}
