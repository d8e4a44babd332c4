import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import { type CpuReading, per1000 } from '../lib/cpu';
import { Exchange } from '../lib/exchange';
import { ServerProcess } from '../lib/proc';
import type { FigureResult } from '../lib/report';
import { median, medianOrNull } from '../lib/stats';
import { type Context, alternate, profiled } from './context';

const EVENTS = 10_000;

/**
 * One replay: a signed-in connection sends `rfq.subscribe { since: 0 }` and counts account events
 * until the last. The frames as received (the baseline sends the same texts).
 */
async function replay(
  url: string,
  signIn: ((ws: WebSocket) => Promise<void>) | null,
  keep: boolean,
  measure: () => Promise<() => Promise<unknown>>,
): Promise<{ seconds: number; measured: unknown; frames: string[] }> {
  const ws = new WebSocket(url, {
    perMessageDeflate: false,
    headers: { 'x-forwarded-for': `10.99.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    if (signIn) await signIn(ws);
    const frames: string[] = [];
    let count = 0;
    const stop = await measure();
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replay: ${count} of ${EVENTS} events in 60 s`)), 60_000);
      ws.on('message', (data) => {
        const text = data.toString();
        if (!text.includes('"subscription"')) return;
        if (keep) frames.push(text);
        if (++count === EVENTS) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rfq.subscribe', params: { since: 0 } }));
    });
    const seconds = (performance.now() - started) / 1000;
    return { seconds, measured: await stop(), frames };
  } finally {
    ws.terminate();
  }
}

/** One real event (an RFQ declined), its stored row copied to account_seq 2..10,000 of the taker; the taker and the maker. */
async function storeEvents(ctx: Context, ex: Exchange) {
  const round = await ex.listRound('SOL', 10, ['150']);
  const taker = await ex.connect(await ex.account(['taker'], '0'), false);
  const maker = await ex.connect(await ex.account(['quoter'], '0'), false);
  const rfq = await taker.rpc.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: round.instruments[0].symbol, quantity: '1' }] });
  await maker.rpc.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
  const db = new Client({ connectionString: ctx.env.databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO account_events (account_id, account_seq, channel, event, rfq, at)
       SELECT e.account_id, s, e.channel, e.event, e.rfq, e.at FROM account_events e, generate_series(2, $2::bigint) s
        WHERE e.account_id = $1 AND e.account_seq = 1`,
      [taker.accountId, EVENTS],
    );
    await db.query(`UPDATE account_event_seqs SET last_seq = $2 WHERE account_id = $1`, [taker.accountId, EVENTS]);
  } finally {
    await db.end();
  }
  return { taker, maker };
}

type F9Rounds = Array<{ legwork: number; baseline: number; cpuL: CpuReading; cpuB: CpuReading }>;

/**
 * F9: replaying 10,000 stored events to one client (docs/spec/design.md 13), events/s from the subscribe to
 * the last event. One real event is made through the app (an RFQ declined by a maker); its stored
 * row is copied to account_seq 1..10,000 of the taker (what a replay reads is the stored rows).
 * Baseline: the bare `ws` server sending the same 10,000 frame texts on the same request.
 */
export async function runF9(ctx: Context): Promise<FigureResult[]> {
  const env = ctx.env.appEnv({ RFQ_RATE_PER_SECOND: '100000', RFQ_RATE_BURST: '100000' });
  const legwork = await ServerProcess.start('legwork-f9', 'legwork', env, { logFile: join(ctx.logDir, 'f9-legwork.log'), nodeArgs: ctx.legworkNodeArgs });
  const bare = await ServerProcess.start('bare-ws-f9', 'bare-ws', {}, { logFile: join(ctx.logDir, 'f9-bare-ws.log') });
  const rounds: F9Rounds = [];
  try {
    const ex = new Exchange(`http://127.0.0.1:${legwork.port}`, `ws://127.0.0.1:${legwork.port}/client`, env);
    const { taker, maker } = await storeEvents(ctx, ex);
    const signIn = async (ws: WebSocket) => {
      const token = ex.sessions.issue(taker.wallet, taker.accountId, ['taker'] as never);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'public/session_resume', params: { session_token: token } }));
      await new Promise<void>((resolve) => ws.once('message', () => resolve()));
    };
    const urlL = `ws://127.0.0.1:${legwork.port}/client`;
    const urlB = `ws://127.0.0.1:${bare.port}/client`;
    // The frames Legwork sends are the baseline's frames (one warm-up replay, not counted).
    const warm = await replay(urlL, signIn, true, async () => async () => null);
    const file = join(ctx.logDir, 'f9-frames.json');
    writeFileSync(file, JSON.stringify(warm.frames));
    await bare.request({ type: 'frames', file });
    for (let r = 0; r < ctx.rounds; r++) {
      const res = await alternate(
        r,
        () => replay(urlB, null, false, () => ctx.meter.start(bare.pid)),
        () => replay(urlL, signIn, false, () => ctx.meter.start(legwork.pid)),
      );
      rounds.push({
        legwork: EVENTS / res.legwork.seconds,
        baseline: EVENTS / res.baseline.seconds,
        cpuL: res.legwork.measured as CpuReading,
        cpuB: res.baseline.measured as CpuReading,
      });
      ctx.log(`F9 round ${r + 1}: ${Math.round(EVENTS / res.legwork.seconds)} events/s vs ${Math.round(EVENTS / res.baseline.seconds)} events/s`);
    }
    await profiled(ctx, legwork, 'F9', () => replay(urlL, signIn, false, async () => async () => null));
    taker.rpc.socket.close();
    maker.rpc.socket.close();
  } finally {
    await legwork.stop();
    await bare.stop();
  }
  return [f9Figure(rounds)];
}

function f9Figure(rounds: F9Rounds): FigureResult {
  const cpu = (pick: (x: (typeof rounds)[number]) => CpuReading) => ({
    server: medianOrNull(rounds.map((x) => per1000(pick(x).server, EVENTS))),
    postgres: medianOrNull(rounds.map((x) => per1000(pick(x).postgres, EVENTS))),
    redis: medianOrNull(rounds.map((x) => per1000(pick(x).redis, EVENTS))),
  });
  const ratio = median(rounds.map((x) => x.legwork / x.baseline));
  return {
    id: 'F9',
    title: 'replay of 10,000 stored events to one client, events/s',
    unit: 'events/s',
    baselineTitle: 'bare ws server sending the same frames',
    status: 'measured',
    legwork: median(rounds.map((x) => x.legwork)),
    baseline: median(rounds.map((x) => x.baseline)),
    ratioOf: 'Legwork / baseline, median of per-round ratios',
    ratio,
    target: '>= 0.50',
    met: ratio >= 0.5,
    rounds: rounds.map((x) => ({ legwork: x.legwork, baseline: x.baseline })),
    cpu: { legwork: cpu((x) => x.cpuL), baseline: cpu((x) => x.cpuB) },
    extra: { events: EVENTS },
    notes: [
      'from sending rfq.subscribe { since: 0 } to receiving the 10,000th event; Legwork reads the stored rows (pages of 1,000), each taker event rendered by PostgreSQL in the read (docs/events.md), the baseline sends prebuilt texts',
    ],
  };
}
