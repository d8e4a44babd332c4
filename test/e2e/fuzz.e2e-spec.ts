import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WebSocket } from 'ws';
import { SessionService } from '../../src/modules/auth/session.service';
import { ClientConnection } from '../../src/modules/gateway/client-connection';
import { ClientGateway, MAX_FRAME_BYTES } from '../../src/modules/gateway/client.gateway';
import { Environment, type TestApp } from './harness';
import { appRows, expectInvariants } from './invariants';
import { type RfqTrader, type Round, clientRef, expirationIn, leg, listRound, rfqTrader } from './rfq-support';
import type { FuzzWorld } from './support/rpc-fuzz';
import { deposit, marketData, quoted } from './support/ledger';

/**
 * An in-process fuzzer of the JSON-RPC gateway: FUZZ_FRAMES frames (default 10^6) generated from
 * every method's params and mutated, through the gateway's frame handling, the real dispatcher
 * and the services against the real database. No fault, every reply well-formed JSON-RPC, one
 * reply per frame, and the ledger's invariants hold afterwards. FUZZ_SEED picks the sequence.
 */
const FRAMES = Number(process.env.FUZZ_FRAMES ?? 1_000_000);
const SEED = Number(process.env.FUZZ_SEED ?? 11);
/** Connections fuzzed at once (each handles its frames one after another, as a client would pipeline them). */
const CONNECTIONS = Number(process.env.FUZZ_CONNECTIONS ?? 64);

/**
 * The database is the real one (PostgreSQL when DATABASE_URL is set); Redis is left out unless
 * FUZZ_REDIS=1: the rate limits and broadcasts are then in-process, so the frame rate is the
 * gateway's and the services', not a Redis round trip per rfq.* call.
 */
const FUZZ_REDIS: Record<string, string> = process.env.FUZZ_REDIS === '1' ? {} : { REDIS_URL: '' };

/** Frames per message from the generator thread. */
const CHUNK = 500;

/** Frames of each fuzzed connection, generated in a worker thread one chunk ahead of their use. */
class FrameSource {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (frames: string[]) => void>();

  constructor(world: FuzzWorld, seed: number) {
    this.worker = new Worker(join(__dirname, 'support', 'fuzz-worker.js'), { workerData: { world, seed } });
    this.worker.on('message', ({ index, frames }: { index: number; frames: string[] }) => {
      const resolve = this.waiting.get(index);
      this.waiting.delete(index);
      resolve?.(frames);
    });
  }

  /** The frames of connection `index`, `total` of them, in chunks. */
  async *frames(index: number, total: number): AsyncGenerator<string> {
    const request = (count: number) =>
      new Promise<string[]>((resolve) => {
        this.waiting.set(index, resolve);
        this.worker.postMessage({ index, count });
      });
    let left = total;
    let next = left > 0 ? request(Math.min(CHUNK, left)) : null;
    while (next) {
      const chunk = await next;
      left -= chunk.length;
      next = left > 0 ? request(Math.min(CHUNK, left)) : null;
      yield* chunk;
    }
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** The socket under a ClientConnection, as the gateway uses it: frames land in `sent`. */
class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  send(text: string): void {
    this.sent.push(text);
  }
  close(): void {
    this.readyState = 3;
  }
  terminate(): void {
    this.readyState = 3;
  }
}

// An integer id beyond 2^53 is echoed as sent (its text, as JSON-RPC asks): JSON.parse reads it back
// as a rounded integer, or as Infinity when written with an exponent past a double's range (1e466).
const isId = (id: unknown) =>
  id === null || typeof id === 'string' || (typeof id === 'number' && (Number.isInteger(id) || id === Infinity || id === -Infinity));

/** Why `value` is not a well-formed JSON-RPC 2.0 reply (or a fault), else null. */
function problem(value: any): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  if (value.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (!('id' in value) || !isId(value.id)) return 'no readable id';
  if ('result' in value === 'error' in value) return 'not exactly one of result and error';
  if ('error' in value) {
    const e = value.error;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e.code) || typeof e.message !== 'string') return 'malformed error';
    if (e.code === -32603) return 'a fault (-32603)';
    if (e.code === 1200 && e.data?.error === 'RFQ_NOT_READY' && /internal error/.test(e.message)) return 'a fault (RFQ_NOT_READY internal)';
    if (e.code === 1200 && (typeof e.data?.operation_id !== 'string' || typeof e.data?.retryable !== 'boolean')) return 'RFQ error without its typed data';
  }
  return null;
}

/** What the fuzz saw: frames sent, frames over the size limit, replies, and the replies by outcome. */
interface Tally {
  frames: number;
  tooBig: number;
  replies: number;
  errors: Map<string, number>;
}

/** Checks what the gateway wrote for one frame `text`: exactly one answer (notifications aside), each reply well-formed. */
function checkAnswer(sent: readonly string[], text: string, counts: Tally, failures: string[]): void {
  let answers = 0;
  for (const out of sent) {
    let value: any;
    try {
      value = JSON.parse(out);
    } catch {
      failures.push(`unparseable reply ${out.slice(0, 200)} to ${text.slice(0, 300)}`);
      continue;
    }
    if (!Array.isArray(value) && value.method === 'subscription') continue;
    answers++;
    for (const reply of Array.isArray(value) ? value : [value]) {
      counts.replies++;
      const why = problem(reply);
      if (why) failures.push(`${why}: ${JSON.stringify(reply).slice(0, 300)} to ${text.slice(0, 300)}`);
      const name = reply?.error ? String(reply.error.data?.error ?? reply.error.code) : 'ok';
      counts.errors.set(name, (counts.errors.get(name) ?? 0) + 1);
    }
    if (Array.isArray(value) && value.length === 0) failures.push(`an empty batch reply to ${text.slice(0, 300)}`);
  }
  if (answers !== 1) failures.push(`${answers} replies to ${text.slice(0, 300)}`);
}

describe(`JSON-RPC gateway fuzz: ${FRAMES} frames, seed ${SEED}`, () => {
  let env: Environment;
  let app: TestApp;
  let round: Round;
  let world: FuzzWorld;
  let traders: RfqTrader[];

  beforeAll(async () => {
    env = await Environment.create({
      MARKET_DATA_MAX_AGE_SECONDS: '86400',
      RFQ_RATE_PER_SECOND: '1000000',
      RFQ_RATE_BURST: '1000000',
      LOG_LEVEL: 'warn',
      ...FUZZ_REDIS,
    });
    app = await env.start();
    round = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    traders = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter']), rfqTrader(app, ['taker', 'quoter'])]);
    for (const t of traders) await deposit(app, t.accountId, '100000');
    const [taker, maker] = traders;
    const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '1')]);
    const open = await taker.client.result('rfq.create', { client_ref: clientRef(), legs: [leg(round.symbol('140', 'put'), '2')] });
    const sessions = app.app.get(SessionService);
    world = {
      wallets: traders.map((t) => t.wallet.address),
      symbols: [round.symbol('140'), round.symbol('150'), round.symbol('160', 'put'), 'SOL-01JAN30-150-C'],
      rfqIds: [q.rfqId, open.rfq_id, '0'.repeat(32)],
      quoteIds: [q.quoteId, 'f'.repeat(64)],
      expiry: round.expiry,
      token: sessions.issue(taker.wallet.address, taker.accountId, ['taker']),
    };
  }, 60_000);
  afterAll(async () => {
    for (const t of traders ?? []) await t.client.close();
    await app?.close();
    await env?.destroy();
  });

  it('answers every frame with well-formed JSON-RPC, never a fault; the invariants hold', async () => {
    const gateway = app.app.get(ClientGateway);
    const onFrame = (gateway as unknown as { onFrame(c: ClientConnection, data: Buffer, binary: boolean): Promise<void> }).onFrame.bind(gateway);
    const sessions = app.app.get(SessionService);
    const failures: string[] = [];
    const counts: Tally = { frames: 0, tooBig: 0, replies: 0, errors: new Map<string, number>() };
    const source = new FrameSource(world, SEED);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();

    const run = async (index: number) => {
      const socket = new FakeSocket();
      const connection = new ClientConnection(socket as unknown as WebSocket, `10.250.${index}.1`, () => undefined);
      const trader = traders[index % 4];
      if (trader) {
        const token = sessions.issue(trader.wallet.address, trader.accountId, [
          ...(index % 4 === 0 ? ['taker'] : index % 4 === 1 ? ['quoter'] : ['taker', 'quoter']),
        ] as never);
        connection.signIn(sessions.principalOf({ wallet: trader.wallet.address, account_id: trader.accountId, roles: [], session_token: token }));
      }
      const share = Math.floor(FRAMES / CONNECTIONS) + (index < FRAMES % CONNECTIONS ? 1 : 0);
      for await (const text of source.frames(index, share)) {
        if (failures.length >= 20) break;
        const bytes = Buffer.from(text, 'utf8');
        counts.frames++;
        if (process.env.FUZZ_PROGRESS && counts.frames % 25_000 === 0) {
          process.stdout.write(
            `fuzz progress: ${counts.frames} frames at ${((performance.now() - started) / 1000).toFixed(1)} s, cpu ${((process.cpuUsage(cpuBefore).user + process.cpuUsage(cpuBefore).system) / 1e6).toFixed(1)} s, failures ${failures.length}, ok ${counts.errors.get('ok') ?? 0}, wrong role ${counts.errors.get('RFQ_WRONG_ROLE') ?? 0}\n`,
          );
        }
        if (bytes.length > MAX_FRAME_BYTES) {
          counts.tooBig++; // ws closes the socket (1009) before the gateway sees it
          continue;
        }
        socket.sent.length = 0;
        await onFrame(connection, bytes, false);
        checkAnswer(socket.sent, text, counts, failures);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => run(i)));
    await source.close();
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    process.stdout.write(
      `fuzz: ${counts.frames} frames (${counts.tooBig} over 64 KiB), ${counts.replies} replies in ${seconds.toFixed(1)} s ` +
        `(${Math.round(counts.frames / seconds)} frames/s, process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s); outcomes ${JSON.stringify(Object.fromEntries([...counts.errors].sort((a, b) => b[1] - a[1])))}\n`,
    );
    expect(failures).toEqual([]);
    expect(counts.frames).toBe(FRAMES);
    // The gateway still serves a real client, and the ledger is whole.
    expect((await traders[0].client.call('rfq.list', {})).result).toBeDefined();
    await expectInvariants(appRows(app));
  }, 1_800_000);
});
