/**
 * `npm run sandbox` (design.md section 18, "A market to try"): its entry (dist-tools/src/sandbox.js,
 * what the script runs after building) started as a desk starts it, with PORT and DATA_DIR, on the
 * built exchange (dist/src/main.js, as `npm run sandbox` runs it). From the moment it is started,
 * a taker that knows only the two printed variables opens a competitive RFQ through the SDK, sees
 * the makers compete, takes the best quote and has it filled within 20 seconds, and the
 * exchange's transcript of the competition verifies.
 * DATA_DIR holds a copy of the run's migrated database, as every e2e database does (0.6 to 1.1 s
 * of boot against 2.8 to 4.5 s); with LEGWORK_E2E_FRESH_DB=1 it starts empty, as in a fresh clone.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type AcceptedBest, Keypair, LegworkClient, RfqError, type RfqLeg, type RfqNotification, type RfqView, verifyQuote } from '../../sdk/src';
import { seedEmbeddedDataDir } from './support/migrated-template';
import { scratchDir } from './support/scratch-dir';
import { freePort } from '../fleet/free-port';

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);
const LIMIT_MS = 20_000;

/** The next `rfq` event of this RFQ among `wanted`, within `ms`. */
async function nextEvent(events: AsyncIterableIterator<RfqNotification>, rfqId: string, wanted: string[], ms: number): Promise<RfqNotification> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${wanted.join('/')} within ${ms} ms`)), ms)));
  const read = (async () => {
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new Error('the connection closed');
      if (value.rfq.rfq_id === rfqId && wanted.includes(value.event)) return value;
    }
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('npm run sandbox', () => {
  let dataDir: string;
  let port: number;
  let child: ChildProcess | null = null;
  let output = '';
  let started = 0;
  let client: LegworkClient | null = null;
  let taker: Keypair;
  const printed = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(output)?.[1];
  const makerWallets = () => [...output.matchAll(/^\S+ (aster|birch|cedar) .*\(wallet (\w+)\)$/gm)].map((m) => m[2]);

  beforeAll(async () => {
    // `npm test` built the tools before its workers started (LEGWORK_PREBUILT=1); alone, build them here.
    // The server is built here either way (`npm test` does not emit dist/), as ledger-crash's test does.
    await Promise.all([
      run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, timeout: 300_000 }),
      process.env.LEGWORK_PREBUILT !== '1' ? run('npm', ['run', '-s', 'tools:build'], { cwd: ROOT, timeout: 300_000 }) : null,
    ]);
    dataDir = join(scratchDir('legwork-sandbox-'), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    seedEmbeddedDataDir(dataDir);
    port = await freePort();
  }, 400_000);

  afterAll(async () => {
    await client?.close();
    if (child && child.exitCode === null) {
      // SIGINT first: the sandbox stops its exchange (a SIGKILL would leave that process behind).
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGINT');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  /** Starts the entry and waits for both variables (the clock starts at the spawn). */
  async function startSandbox(): Promise<{ url: string; seed: string }> {
    started = Date.now();
    child = spawn(process.execPath, [join(ROOT, 'dist-tools/src/sandbox.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    while (!printed('LEGWORK_SEED')) {
      if (child.exitCode !== null) throw new Error(`the sandbox exited with ${child.exitCode}:\n${output}`);
      if (Date.now() - started > LIMIT_MS) throw new Error(`no LEGWORK_SEED within ${LIMIT_MS} ms:\n${output}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    return { url: printed('LEGWORK_URL')!, seed: printed('LEGWORK_SEED')! };
  }

  /** One RFQ from create to its first answer: the quoted or declined view. */
  async function ask(legs: RfqLeg[], ms: number): Promise<{ rfq: RfqView; events: AsyncIterableIterator<RfqNotification> }> {
    const events = client!.notifications('rfq');
    await client!.subscribeRfq();
    const created = await client!.createRfq({ legs });
    const answer = await nextEvent(events, created.rfq_id, ['quoted', 'declined', 'expired'], ms);
    return { rfq: answer.rfq, events };
  }

  /** The RFQ's view once at least `count` makers quote it (its `quotes` events), within `ms`. */
  async function competing(events: AsyncIterableIterator<RfqNotification>, rfqId: string, count: number, ms: number): Promise<RfqView> {
    const deadline = Date.now() + ms;
    for (;;) {
      const n = await nextEvent(events, rfqId, ['quotes'], Math.max(1, deadline - Date.now()));
      if ((n.rfq.quotes ?? []).length >= count) return n.rfq;
    }
  }

  /** acceptBest, again when the best quote ended between the read and the accept (a maker replaced it as the marks moved). */
  async function takeBest(rfqId: string): Promise<AcceptedBest> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client!.acceptBest(rfqId, 'buy', { expiresInSeconds: 20 });
      } catch (error) {
        if (attempt === 3 || !(error instanceof RfqError) || error.error !== 'RFQ_QUOTE_EXPIRED') throw error;
      }
    }
  }

  it('prints LEGWORK_URL and LEGWORK_SEED on lines of their own; with them a taker takes the best of competing quotes within 20 s of start', async () => {
    const { url, seed } = await startSandbox();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(makerWallets()).size).toBe(3);

    taker = Keypair.fromSeed(Uint8Array.from(Buffer.from(seed, 'hex')));
    client = await LegworkClient.connect(`ws://127.0.0.1:${port}/client`);
    expect((await client.signIn(taker)).roles).toContain('taker');
    const calls = (await client.getInstruments({ asset: 'SOL' })).filter((i) => i.kind === 'call').sort((a, b) => a.expiry - b.expiry);
    const at = (strike: string) => calls.find((i) => i.strike === strike)!;
    const legs = [
      { instrument: at('150').symbol, quantity: '10' },
      { instrument: at('160').symbol, quantity: '-10' },
    ];
    const events = client.notifications('rfq');
    await client.subscribeRfq();
    const created = await client.createRfq({ legs, competition: {} });
    expect(created.competition).toEqual({ makers: null });
    const quoted = await competing(events, created.rfq_id, 2, Math.max(1, LIMIT_MS - (Date.now() - started)));
    const makers = new Set(quoted.quotes!.map((q) => q.maker));
    expect(makers.size).toBe(quoted.quotes!.length);
    for (const q of quoted.quotes!) {
      expect(makerWallets()).toContain(q.maker);
      expect(verifyQuote({ ...quoted, quote: q }, calls, { serviceName: 'Legwork' })).toBe(true);
    }

    const taken = await takeBest(created.rfq_id);
    expect(taken.best).toBe(true);
    const done = await nextEvent(events, created.rfq_id, ['filled', 'failed'], Math.max(1, LIMIT_MS - (Date.now() - started)));
    expect(done.event).toBe('filled');
    expect(done.rfq.fill!.price).toBe(taken.quote.ask);
    expect(Date.now() - started).toBeLessThan(LIMIT_MS);

    const { check } = await client.verifiedTranscript(created.rfq_id);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.transcript.accepted).toMatchObject({ quote_id: taken.quote.quote_id, side: 'buy', price: taken.quote.ask, best: true });
    expect(new Set(check.transcript.quotes.map((q) => q.maker)).size).toBeGreaterThanOrEqual(2);
    const ends = check.transcript.quotes.filter((q) => q.quote_id !== taken.quote.quote_id).map((q) => q.end);
    expect(ends).toContain('traded_away');
  }, 60_000);

  it('a three-leg RFQ, which the selective maker declines, is still quoted by another maker (its decline comes late)', async () => {
    const calls = (await client!.getInstruments({ asset: 'SOL' })).filter((i) => i.kind === 'call').sort((a, b) => a.expiry - b.expiry);
    const symbol = (strike: string) => calls.find((i) => i.strike === strike)!.symbol;
    const { rfq } = await ask(
      [
        { instrument: symbol('140'), quantity: '1' },
        { instrument: symbol('150'), quantity: '-2' },
        { instrument: symbol('160'), quantity: '1' },
      ],
      10_000,
    );
    expect(rfq.state).toBe('quoted');
    const cedar = /^\S+ cedar .*\(wallet (\w+)\)$/m.exec(output)![1];
    expect(rfq.quote!.maker).not.toBe(cedar);
  }, 30_000);

  it('SIGINT stops the makers and the exchange (exit 0); a DATA_DIR that was given stays', async () => {
    const exited = new Promise<number | null>((done) => child!.once('exit', (code) => done(code)));
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    expect(existsSync(dataDir) && readdirSync(dataDir).length).toBeGreaterThan(0);
  }, 30_000);
});
