import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RpcClient, TestWallet, freshIp } from './clients';
import { Environment, type TestApp } from './harness';
import { appRows, expectInvariants } from './invariants';
import { acceptParams, deposit, marketData, quoted } from './support/ledger';
import { type RfqTrader, type Round, expirationIn, leg, listRound, rfqTrader } from './rfq-support';

/**
 * docs/spec/design.md section 10 under attack: one client pipelines 20,000 public/auth frames with bad
 * signatures while another runs RFQ lifecycles (create, quote, accept, filled). The flooder gets
 * 1005s (in flight, then sign-in rate), the server stays up, and the trader's lifecycle p99 stays
 * within 2x of its p99 without the flood, measured in this run.
 *
 * A latency ratio: `npm test` leaves this file to `npm run test:long`, which runs it second (after retention), in a jest
 * process of its own (`npm run test:flood`): after the other suites (the fuzz's million frames
 * among them) the same process and database were slower, and the flood was answered in 1.5 s
 * instead of 0.8 s.
 */
const FLOOD_FRAMES = 20_000;
/** Lifecycles per phase: enough that the p99 is not one unlucky sample (the 2nd worst of 120). */
const LIFECYCLES = 120;

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

describe('a sign-in flood does not slow another client down (design.md section 10)', () => {
  let env: Environment;
  let app: TestApp;
  let round: Round;
  let taker: RfqTrader;
  let maker: RfqTrader;

  beforeAll(async () => {
    env = await Environment.create({ MARKET_DATA_MAX_AGE_SECONDS: '86400', RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000', MAX_OPEN_RFQS: '100000' });
    app = await env.start();
    round = await listRound(app, 'SOL', expirationIn(10));
    await marketData(app, 'SOL', '150');
    [taker, maker] = await Promise.all([rfqTrader(app, ['taker']), rfqTrader(app, ['quoter'])]);
    await deposit(app, taker.accountId, '1000000');
    await deposit(app, maker.accountId, '1000000');
    await taker.client.result('rfq.subscribe', {});
  });
  afterAll(async () => {
    await taker?.client.close();
    await maker?.client.close();
    await app?.close();
    await env?.destroy();
  });

  /** One lifecycle, create to the `filled` event: milliseconds. */
  async function lifecycle(): Promise<number> {
    const started = performance.now();
    const q = await quoted(taker, maker, round.expiry, [leg(round.symbol('150'), '0.1')]);
    const filled = taker.client.next((n) => n.channel === 'rfq' && n.data.event === 'filled' && n.data.rfq.rfq_id === q.rfqId, 20_000);
    await taker.client.result('rfq.accept', acceptParams(taker.wallet, q, 'buy'));
    await filled;
    return performance.now() - started;
  }

  it('flooder gets 1005s, the server stays up, the trader p99 stays within 2x', async () => {
    for (let i = 0; i < 10; i++) await lifecycle(); // warm-up
    const quiet: number[] = [];
    for (let i = 0; i < LIFECYCLES; i++) quiet.push(await lifecycle());

    const wallet = new TestWallet();
    const floodStarted = performance.now();
    const child = spawn(process.execPath, [join(__dirname, 'support', 'flooder.js'), app.wsUrl, freshIp(), String(FLOOD_FRAMES), wallet.address], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    const allAnswered = new Promise<{ answered: number; codes: Record<string, number>; closeCode: number | null }>((resolve) =>
      child.on('exit', () => resolve(JSON.parse(output.trim().split('\n').pop() as string))),
    );
    // The flood has begun once the flooder is connected.
    while (!output.startsWith('open')) await new Promise((r) => setTimeout(r, 5));

    const flooded: number[] = [];
    // How long the event loop (server and trader alike) was held at a time during the flood.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    let floodDone = false;
    let floodMs = 0;
    void allAnswered.then(() => {
      floodDone = true;
      floodMs = performance.now() - floodStarted;
      loopDelay.disable();
    });
    while (flooded.length < LIFECYCLES || !floodDone) flooded.push(await lifecycle());
    const { answered, codes: codeCounts, closeCode } = await allAnswered;
    // Quiet again after the flood: the baseline is both quiet phases, so a machine that got
    // busier or calmer during the run (other work on the same cores) does not decide the ratio.
    for (let i = 0; i < LIFECYCLES; i++) quiet.push(await lifecycle());
    const codes = new Map(Object.entries(codeCounts).map(([c, n]) => [Number(c), n] as [number, number]));

    const quietP99 = p99(quiet);
    const floodP99 = p99(flooded);
    // The figures of this run, for the log: the assertions below hold only the ratio.
    process.stdout.write(
      `flood: ${FLOOD_FRAMES} frames answered in ${floodMs.toFixed(0)} ms, codes ${JSON.stringify(Object.fromEntries(codes))}, ` +
        `event loop held at most ${(loopDelay.max / 1e6).toFixed(0)} ms; ` +
        `lifecycle p99 quiet ${quietP99.toFixed(1)} ms (n=${quiet.length}, before and after), flooded ${floodP99.toFixed(1)} ms (n=${flooded.length}), ratio ${(floodP99 / quietP99).toFixed(2)}\n`,
    );

    expect(closeCode).toBeNull();
    expect(answered).toBe(FLOOD_FRAMES);
    expect(codes.get(1005)).toBeGreaterThan(FLOOD_FRAMES * 0.9);
    expect(codes.get(-32603) ?? 0).toBe(0);
    expect([...codes.keys()].every((c) => [1005, 1002, 1001].includes(c))).toBe(true);
    expect(floodP99).toBeLessThanOrEqual(2 * quietP99);
    // Still up and answering.
    const fresh = await RpcClient.connect(app.wsUrl, { 'x-forwarded-for': freshIp() });
    expect((await fresh.call('public/get_market_config')).result).toBeDefined();
    await fresh.close();
    await expectInvariants(appRows(app));
  }, 240_000);
});
