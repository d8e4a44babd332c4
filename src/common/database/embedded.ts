import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite' with { 'resolution-mode': 'import' };
import type { PGLiteSocketHandler } from '@electric-sql/pglite-socket' with { 'resolution-mode': 'import' };
import { ConfigError } from '../config/config';

/**
 * One end of an in-memory connection between the pg driver and PGlite. What one end writes, the
 * other reads; ending one ends both. pg calls a few `net.Socket` methods on its end: `connect`
 * (there is nothing to reach: it reports connected on the next tick), `setNoDelay`,
 * `setKeepAlive`, `ref` and `unref`, all without meaning here.
 */
class PipeEnd extends Duplex {
  peer!: PipeEnd;
  readonly remoteAddress = 'in-process';
  readonly remotePort = 0;

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.destroy();
    callback(error);
  }

  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

function pipePair(): [PipeEnd, PipeEnd] {
  // allowHalfOpen false: the end that reads the other's end of stream ends too, and both close.
  const client = new PipeEnd({ allowHalfOpen: false });
  const server = new PipeEnd({ allowHalfOpen: false });
  client.peer = server;
  server.peer = client;
  return [client, server];
}

/**
 * The embedded database served to the pg driver without any socket (docs/spec/design.md section
 * 16: it accepts no connection from outside the process). Each connection the driver opens is an
 * in-memory pipe whose far end pglite-socket's protocol handler serves, with the same one query
 * queue for every connection (PGlite has one session) that its TCP server had.
 */
export class EmbeddedConnector {
  private readonly handlers = new Set<PGLiteSocketHandler>();
  private closed = false;

  private constructor(
    private readonly queryQueue: unknown,
    private readonly Handler: typeof PGLiteSocketHandler,
  ) {}

  static async create(db: PGlite): Promise<EmbeddedConnector> {
    const socket = await import('@electric-sql/pglite-socket');
    // The server is never started (no listen): only its query queue, which its handlers share, is used.
    const unstarted = new socket.PGLiteSocketServer({ db });
    return new EmbeddedConnector((unstarted as unknown as { queryQueue: unknown }).queryQueue, socket.PGLiteSocketHandler);
  }

  /** pg's `stream` option: the driver's end of a new in-process connection. */
  readonly stream = (): Duplex => {
    if (this.closed) throw new Error('the embedded database is closed');
    const [client, server] = pipePair();
    const handler = new this.Handler({ queryQueue: this.queryQueue as never, closeOnDetach: true });
    this.handlers.add(handler);
    const forget = () => this.handlers.delete(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    void handler.attach(server as never);
    return client;
  };

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.handlers].map((handler) => handler.detach(true)));
    this.handlers.clear();
  }
}

/** Group or other may write: another local user could replace the database's files. */
const WRITABLE_BY_OTHERS = 0o022;
/** Group or other may read, write or enter. */
const OPEN_TO_OTHERS = 0o077;

/**
 * DATA_DIR before the embedded database opens it (docs/spec/design.md section 16): created with
 * mode 0700; refused when another user can write it or owns it (ConfigError naming DATA_DIR).
 * `closeDataDirToOthers` then closes what is in it.
 */
export function preparePrivateDataDir(dataDir: string): void {
  const path = resolve(dataDir);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stat = statSync(path);
  if (!stat.isDirectory()) throw new ConfigError('DATA_DIR', `${path} is not a directory`);
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) {
    throw new ConfigError('DATA_DIR', `${path} is writable by other users (mode ${(stat.mode & 0o777).toString(8)}): chmod 700 it or choose another`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && stat.uid !== uid) {
    throw new ConfigError('DATA_DIR', `${path} belongs to another user (uid ${stat.uid})`);
  }
}

/** chmod go-rwx on a tree of ours (symbolic links are not followed). */
function closeToOthers(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & OPEN_TO_OTHERS) !== 0) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const name of readdirSync(path)) closeToOthers(join(path, name));
}

/** An existing DATA_DIR of ours (from before the rule) and every file in it: closed to group and others. */
export function closeDataDirToOthers(dataDir: string): void {
  closeToOthers(resolve(dataDir));
}
