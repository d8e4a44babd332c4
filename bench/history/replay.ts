import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import WebSocket from 'ws';
import type { CpuReading } from '../lib/cpu';
import type { FigureResult } from '../lib/report';
import { run } from '../lib/proc';
import { absoluteFigure, cpuPer1000, pairFigure } from './measure';
import { type HistoryOptions, type Side, bothSides } from './sides';

const EVENTS = 10_000;

/**
 * F9 on both sides: a new taker's one real event (an RFQ declined) copied to account_seq
 * 1..10,000 (as F9 does), then `rfq.subscribe { since: 0 }` and events/s until the 10,000th.
 * On the year side the replay reads next to 5,000,000 stored events of other accounts.
 */
async function prepareF9(side: Side): Promise<string> {
  const ex = side.ex;
  const round = await ex.listRound('HBNINE', 10, ['150']);
  const taker = await ex.connect(await ex.account(['taker'], '0'), false);
  const maker = await ex.connect(await ex.account(['quoter'], '0'), false);
  const rfq = await taker.rpc.result('rfq.create', { client_ref: randomUUID(), legs: [{ instrument: round.instruments[0].symbol, quantity: '1' }] });
  await maker.rpc.result('rfq.maker.decline', { rfq_id: rfq.rfq_id, reason: 'size_limit' });
  const db = new Client({ connectionString: side.env.databaseUrl });
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
  await taker.rpc.close();
  await maker.rpc.close();
  return ex.sessions.issue(taker.wallet, taker.accountId, ['taker'] as never);
}

/**
 * Replays per side and round: one replay of 10,000 events lasts 150 to 200 ms, and single replays
 * gave per-round ratios from 0.73 to 1.69 on a 2-core machine; five make a window of about 1 s.
 */
const REPLAYS = 5;

/** REPLAYS replays on fresh connections: events/s over the replays' own time, CPU over all of it. */
async function replays(side: Side, token: string): Promise<{ rate: number; cpu: CpuReading }> {
  const stop = await side.meter.start(side.server.pid);
  let seconds = 0;
  for (let i = 0; i < REPLAYS; i++) seconds += await replay(side, token);
  return { rate: (REPLAYS * EVENTS) / seconds, cpu: await stop() };
}

/** One replay: seconds from rfq.subscribe { since: 0 } to the 10,000th event. */
async function replay(side: Side, token: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${side.server.port}/client`, { perMessageDeflate: false, headers: { 'x-forwarded-for': '10.98.0.1' } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'public/session_resume', params: { session_token: token } }));
    await new Promise<void>((resolve) => ws.once('message', () => resolve()));
    let count = 0;
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replay on ${side.name}: ${count} of ${EVENTS} events in 60 s`)), 60_000);
      ws.on('message', (data) => {
        if (!data.toString().includes('"subscription"')) return;
        if (++count === EVENTS) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rfq.subscribe', params: { since: 0 } }));
    });
    return (performance.now() - t0) / 1000;
  } finally {
    ws.terminate();
  }
}

export async function replayFigure(o: HistoryOptions, sides: { year: Side; fresh: Side }): Promise<FigureResult> {
  const tokens = { year: await prepareF9(sides.year), fresh: await prepareF9(sides.fresh) };
  for (const side of [sides.year, sides.fresh]) await replay(side, tokens[side.name]);
  const rounds: Array<{ year: { rate: number; cpu: CpuReading }; fresh: { rate: number; cpu: CpuReading } }> = [];
  for (let r = 0; r < o.rounds; r++) rounds.push(await bothSides(r, sides, (side) => replays(side, tokens[side.name])));
  o.log(`history: F9 done`);
  return pairFigure(
    {
      id: 'F9',
      title: 'replay of 10,000 stored events to one client, events/s, year vs fresh',
      unit: 'events/s',
      kind: 'rate',
      notes: [
        `a new taker on each side; its one real event copied to account_seq 1..10,000; from rfq.subscribe { since: 0 } to the 10,000th event, ${REPLAYS} replays per side and round (each on a new connection; their replay times summed)`,
      ],
    },
    rounds.map((x) => ({ legwork: x.year.rate, baseline: x.fresh.rate })),
    cpuPer1000(rounds.map((x) => ({ cpuL: x.year.cpu, cpuB: x.fresh.cpu, opsL: REPLAYS * EVENTS, opsB: REPLAYS * EVENTS }))),
  );
}

/** `npm run -s cli -- verify-journal` (the built CLI, dist-tools) against one side: receipts and seconds. */
async function verifyJournal(side: Side): Promise<{ receipts: number; seconds: number; ok: boolean; line: string }> {
  const cli = join(__dirname, '..', '..', '..', '..', 'dist-tools', 'src', 'cli.js');
  const t0 = performance.now();
  const r = await run(process.execPath, [cli, 'verify-journal', '--url', side.base], { timeoutMs: 600_000 });
  const seconds = (performance.now() - t0) / 1000;
  const line = (r.stdout + r.stderr).trim().split('\n')[0] ?? '';
  const m = /journal ok: (\d+) receipts/.exec(line);
  return { receipts: m ? Number(m[1]) : 0, seconds, ok: r.code === 0 && !!m, line };
}

/** verify-journal over the whole year (>= 20,000 receipts/s, absolute); the fresh side's tiny journal for reference. */
export async function verifyFigure(o: HistoryOptions, sides: { year: Side; fresh: Side }, expected: number): Promise<FigureResult> {
  const fresh = await verifyJournal(sides.fresh);
  const year = await verifyJournal(sides.year);
  o.log(`history: verify-journal year: ${year.line} in ${year.seconds.toFixed(1)} s; fresh: ${fresh.line}`);
  if (!year.ok || year.receipts < expected) throw new Error(`verify-journal on the year failed: ${year.line} (expected at least ${expected} receipts)`);
  const rate = year.receipts / year.seconds;
  return absoluteFigure(
    {
      id: 'H-verify-journal',
      title: `verify-journal over the year's ${year.receipts.toLocaleString('en-US')} receipts, receipts/s`,
      unit: 'receipts/s',
      target: '>= 20,000 receipts/s',
      notes: [
        'node dist-tools/src/cli.js verify-journal --url <year server> (what npm run -s cli -- verify-journal runs, after tools:build), timed from spawn to exit; one run',
        `fresh side for reference: ${fresh.line} in ${fresh.seconds.toFixed(2)} s`,
      ],
      extra: { receipts: year.receipts, seconds: year.seconds, fresh_receipts: fresh.receipts, fresh_seconds: fresh.seconds },
    },
    rate,
    null,
    rate >= 20_000,
  );
}
