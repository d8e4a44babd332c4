import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { CpuReading } from '../lib/cpu';
import { parallel } from '../lib/env';
import type { Leg, Round, Trader } from '../lib/exchange';
import { type HttpLoadResult, httpLoad } from '../lib/http-load';
import type { FigureResult } from '../lib/report';
import { type PairRound, cpuPer1000, pairFigure, rpcLoad } from './measure';
import { type Scale, hotTakerId, makerId } from './plan';
import { type HistoryOptions, type Side, bothSides, yearTrader } from './sides';

/**
 * The read figures of a history run, year vs fresh, alternating rounds: F1b (GET
 * /query/rfq-positions of an account with 50 positions made by real fills, on both sides),
 * GET /query/rfq-fills (first page; a page `deepFills` deep through the keyset cursor `after`),
 * rfq.list and rfq.maker.poll.
 */
interface ReadSetup {
  /** F1b's account: 50 positions through four real lifecycles (13/13/13/11 legs). */
  f1Token: string;
  /** The account whose fills are read: the year's first hot taker; on the fresh side F1b's taker. */
  fillsToken: string;
  /** The keyset cursor `deepFills` fills deep (year side only). */
  deepAfter: string | null;
  fillsOfAccount: number;
  lister: Trader;
  poller: Trader;
  creator: Trader;
  createLegs: Leg[];
}

export async function prepareReads(side: Side, s: Scale): Promise<ReadSetup> {
  const ex = side.ex;
  const strikes = Array.from({ length: 25 }, (_, i) => String(100 + 5 * i));
  const round = await ex.listRound('HBONE', 3, strikes);
  const taker = await ex.connect(await ex.account(['taker'], '100000000'), true);
  const maker = await ex.connect(await ex.account(['quoter'], '1000000000'), false);
  const symbols = round.instruments.map((i) => i.symbol);
  for (const [from, to] of [
    [0, 13],
    [13, 26],
    [26, 39],
    [39, 50],
  ])
    await ex.lifecycle(
      taker,
      maker,
      round,
      symbols.slice(from, to).map((instrument) => ({ instrument, quantity: '1' })),
      'buy',
    );
  const f1Token = ex.sessions.issue(taker.wallet, taker.accountId, ['taker']);
  const creator = await ex.connect(await ex.account(['taker'], '100000000'), false);
  const createLegs = [{ instrument: round.symbol('150'), quantity: '1' }];
  if (side.name === 'fresh') {
    // The fresh taker's live book: 60 RFQs (a full page of 50), like the hot taker's of the year,
    // and of the same shape: one to four legs in turn (the year's hot taker averages 2.54 legs an
    // RFQ; with one leg each the page was 2.5 times smaller, and H-rfq-list measured its size).
    for (let i = 0; i < 60; i++) {
      const legs = symbols.slice(i % 40, (i % 40) + 1 + (i % 4)).map((instrument) => ({ instrument, quantity: '1' }));
      await taker.rpc.result('rfq.create', { client_ref: randomUUID(), legs });
    }
    const poller = await ex.connect(await ex.account(['quoter'], '0'), false);
    const filler = await freshFills(side, round, symbols.slice(0, 2));
    const fillsToken = ex.sessions.issue(filler.wallet, filler.accountId, ['taker']);
    return { f1Token, fillsToken, deepAfter: null, fillsOfAccount: filler.accountId, lister: taker, poller, creator, createLegs };
  }
  const hot = hotTakerId(s, 0);
  const lister = await yearTrader(side, hot, ['taker']);
  const poller = await yearTrader(side, makerId(0), ['quoter']);
  const c = new Client({ connectionString: side.env.databaseUrl });
  await c.connect();
  const deep = await c
    .query(
      `SELECT id FROM (SELECT id FROM fills WHERE taker_account_id = $1 UNION ALL SELECT id FROM fills WHERE maker_account_id = $1) x
        ORDER BY id DESC OFFSET $2 LIMIT 1`,
      [hot, s.deepFills],
    )
    .finally(() => c.end());
  if (!deep.rows.length) throw new Error(`account ${hot} has fewer than ${s.deepFills} fills`);
  const fillsToken = ex.sessions.issue(lister.wallet, hot, ['taker']);
  return { f1Token, fillsToken, deepAfter: String(deep.rows[0].id), fillsOfAccount: hot, lister, poller, creator, createLegs };
}

/** A fresh taker with 120 real two-leg fills (8 makers in parallel): a full first page of /query/rfq-fills, as the year's. */
async function freshFills(side: Side, round: Round, symbols: string[]): Promise<Trader> {
  const ex = side.ex;
  const taker = await ex.connect(await ex.account(['taker'], '1000000000'), true);
  const makers = await Promise.all(Array.from({ length: 8 }, async () => ex.connect(await ex.account(['quoter'], '1000000000'), false)));
  const legs = [
    { instrument: symbols[0], quantity: '1' },
    { instrument: symbols[1], quantity: '-1' },
  ];
  await Promise.all(
    makers.map(async (maker) => {
      for (let i = 0; i < 15; i++) await ex.lifecycle(taker, maker, round, legs, i % 2 === 0 ? 'buy' : 'sell');
    }),
  );
  for (const m of makers) await m.rpc.close();
  return taker;
}

type Setups = { year: ReadSetup; fresh: ReadSetup };
type Sides = { year: Side; fresh: Side };

async function httpRounds(
  o: HistoryOptions,
  sides: Sides,
  setups: Setups,
  path: (x: ReadSetup) => string,
  token: (x: ReadSetup) => string,
  connections: number,
) {
  const seconds = o.quick ? 1 : 3;
  const load = (side: Side) => {
    const x = setups[side.name];
    return httpLoad(side.base + path(x), {
      connections,
      seconds,
      headers: { authorization: `Bearer ${token(x)}` },
      measure: () => side.meter.start(side.server.pid),
    });
  };
  const check = (r: HttpLoadResult, what: string) => {
    if (r.non2xx || r.errors) throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors of ${r.requests}`);
    return r;
  };
  for (const side of [sides.year, sides.fresh]) await load(side).then((r) => check(r, `warm-up ${side.name}`));
  const rounds: Array<{ y: HttpLoadResult; f: HttpLoadResult }> = [];
  for (let r = 0; r < o.rounds; r++) {
    const x = await bothSides(r, sides, async (side) => check(await load(side), side.name));
    rounds.push({ y: x.year, f: x.fresh });
  }
  return rounds;
}

function httpFigure(
  f: { id: string; title: string; notes: string[]; extra?: Record<string, unknown> },
  rounds: Array<{ y: HttpLoadResult; f: HttpLoadResult }>,
): FigureResult {
  const pr: PairRound[] = rounds.map((x) => ({ legwork: x.y.rps, baseline: x.f.rps, p99L: x.y.p99, p99B: x.f.p99 }));
  const cpu = cpuPer1000(rounds.map((x) => ({ cpuL: x.y.measured as CpuReading, cpuB: x.f.measured as CpuReading, opsL: x.y.requests, opsB: x.f.requests })));
  const p99 = { year: rounds.map((x) => x.y.p99), fresh: rounds.map((x) => x.f.p99) };
  return pairFigure({ id: f.id, title: f.title, unit: 'req/s', kind: 'rate', notes: f.notes, extra: { ...f.extra, p99_ms: p99 } }, pr, cpu);
}

export async function readFigures(o: HistoryOptions, s: Scale, sides: Sides, setups: Setups): Promise<FigureResult[]> {
  const out: FigureResult[] = [];
  const f1 = await httpRounds(
    o,
    sides,
    setups,
    () => '/query/rfq-positions',
    (x) => x.f1Token,
    16,
  );
  out.push(
    httpFigure(
      {
        id: 'F1b',
        title: 'GET /query/rfq-positions (50 positions), req/s, year vs fresh',
        notes: ['autocannon, 16 connections, closed loop; on each side a new account with 50 positions made by four real lifecycles'],
      },
      f1,
    ),
  );
  o.log(`history: F1b done`);
  out.push(...(await fillsFigures(o, s, sides, setups)));
  o.log(`history: rfq-fills done`);
  out.push(
    await rpcFigure(o, sides, 'H-rfq-list', 'rfq.list (a page of 50 of the taker’s live book), calls/s', (x) => x.lister, 'rfq.list', { limit: 50 }, setups),
  );
  out.push(
    await rpcFigure(o, sides, 'H-maker-poll', 'rfq.maker.poll (pending RFQs, page of 50), calls/s', (x) => x.poller, 'rfq.maker.poll', { limit: 50 }, setups),
  );
  return out;
}

/** The first page of the first hot taker's fills, and a page deep in them. */
async function fillsFigures(o: HistoryOptions, s: Scale, sides: Sides, setups: Setups): Promise<FigureResult[]> {
  const first = await httpRounds(
    o,
    sides,
    setups,
    () => '/query/rfq-fills',
    (x) => x.fillsToken,
    4,
  );
  const out: FigureResult[] = [];
  out.push(
    httpFigure(
      {
        id: 'H-fills-first',
        title: 'GET /query/rfq-fills first page (100 rows), req/s, year vs fresh',
        notes: [
          `year: the first hot taker (${s.filled * 0.12} of the year's fills as taker, more as none); fresh: a new account with 120 real two-leg fills`,
          'autocannon, 4 connections, closed loop',
        ],
      },
      first,
    ),
  );
  const deep = await httpRounds(
    o,
    sides,
    setups,
    (x) => `/query/rfq-fills${x.deepAfter ? `?after=${x.deepAfter}` : ''}`,
    (x) => x.fillsToken,
    4,
  );
  out.push(
    httpFigure(
      {
        id: 'H-fills-deep',
        title: `GET /query/rfq-fills a page ${s.deepFills.toLocaleString('en-US')} fills deep (keyset after), req/s, year vs fresh first page`,
        notes: [
          `the year's page starts ${s.deepFills.toLocaleString('en-US')} fills deep in the first hot taker's fills (after = the fill id there)${o.quick ? '; at quick scale 1/50 of the 100,000 of the full run' : ''}; the fresh side reads its first page`,
          'autocannon, 4 connections, closed loop',
        ],
        extra: { deep_fills: s.deepFills, after: setups.year.deepAfter },
      },
      deep,
    ),
  );
  return out;
}

async function rpcFigure(
  o: HistoryOptions,
  sides: Sides,
  id: string,
  title: string,
  who: (x: ReadSetup) => Trader,
  method: string,
  params: unknown,
  setups: Setups,
): Promise<FigureResult> {
  const calls = o.quick ? 200 : 1000;
  const run = async (side: Side) => {
    const x = setups[side.name];
    // rfq.maker.poll: 60 pending RFQs from another taker first, 8 at a time (something to page through; they expire in 4 s).
    if (method === 'rfq.maker.poll') await parallel(60, 8, () => x.creator.rpc.result('rfq.create', { client_ref: randomUUID(), legs: x.createLegs }));
    return rpcLoad(who(x).rpc, method, params, calls, 8, () => side.meter.start(side.server.pid));
  };
  for (const side of [sides.year, sides.fresh]) await rpcLoad(who(setups[side.name]).rpc, method, params, 50, 8);
  const rounds: Array<{ year: Awaited<ReturnType<typeof run>>; fresh: Awaited<ReturnType<typeof run>> }> = [];
  for (let r = 0; r < o.rounds; r++) rounds.push(await bothSides(r, sides, run));
  o.log(`history: ${id} done`);
  return pairFigure(
    {
      id,
      title,
      unit: 'calls/s',
      kind: 'rate',
      notes: [
        `${calls} calls per round over one signed-in connection, 8 in flight (closed loop)${method === 'rfq.maker.poll' ? '; 60 pending RFQs created by another taker before each window' : ''}`,
        id === 'H-rfq-list'
          ? 'year: the first hot taker (its live book holds the RFQs of its last 24 h, 2.54 legs each on average); fresh: a taker with 60 RFQs of one to four legs in turn'
          : 'year: the busiest maker; fresh: a new quoter',
      ],
      extra: { p50_ms: rounds.map((x) => [x.year.p50, x.fresh.p50]), p99_ms: rounds.map((x) => [x.year.p99, x.fresh.p99]) },
    },
    rounds.map((x) => ({ legwork: x.year.rate, baseline: x.fresh.rate, p99L: x.year.p99, p99B: x.fresh.p99 })),
    cpuPer1000(rounds.map((x) => ({ cpuL: x.year.measured as CpuReading, cpuB: x.fresh.measured as CpuReading, opsL: calls, opsB: calls }))),
  );
}
