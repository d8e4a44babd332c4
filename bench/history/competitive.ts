import { PANEL, competitiveLifecycle } from '../lib/competitive';
import type { CpuReading } from '../lib/cpu';
import type { Leg, Round, Trader } from '../lib/exchange';
import type { FigureResult } from '../lib/report';
import { sleep } from '../lib/proc';
import { median } from '../lib/stats';
import { pairFigure } from './measure';
import { type HistoryOptions, QUOTE_LIFETIME, type Side, bothSides } from './sides';

/**
 * F13 on the year: competitive RFQ lifecycles per second (16 takers, each with its own panel of 5
 * makers, one of them replacing once, the best accepted; bench/lib/competitive.ts) on the year-old
 * database against the fresh one, alternating rounds as F5's year line.
 */
const TAKERS = 16;

interface Panels {
  takers: Trader[];
  panels: Trader[][];
  round: Round;
  legs: Leg[];
}

interface CompetitiveRound {
  lifecycles: number;
  seconds: number;
  failures: number;
  cpu: CpuReading;
}

async function preparePanels(side: Side): Promise<Panels> {
  const ex = side.ex;
  const round = await ex.listRound('HBCOMP', 3, ['140', '150', '160']);
  const legs = [
    { instrument: round.symbol('150'), quantity: '1' },
    { instrument: round.symbol('160'), quantity: '-1' },
  ];
  const takers = await Promise.all(Array.from({ length: TAKERS }, async () => ex.connect(await ex.account(['taker'], '100000000'), true)));
  const makers = await Promise.all(Array.from({ length: TAKERS * PANEL }, async () => ex.connect(await ex.account(['quoter'], '1000000000'), false)));
  return { takers, panels: takers.map((_, i) => makers.slice(i * PANEL, (i + 1) * PANEL)), round, legs };
}

async function competitiveRound(side: Side, p: Panels, warmMs: number, windowMs: number, log: (line: string) => void): Promise<CompetitiveRound> {
  let running = true;
  let counting = false;
  let lifecycles = 0;
  let failures = 0;
  const loops = p.takers.map(async (taker, i) => {
    while (running) {
      try {
        await competitiveLifecycle(side.ex, taker, p.panels[i], p.round, p.legs, QUOTE_LIFETIME);
        if (counting) lifecycles++;
      } catch (error) {
        if (counting && ++failures <= 2) log(`history: F13 ${side.name} lifecycle failed: ${String((error as Error).message).slice(0, 200)}`);
        await sleep(20);
      }
    }
  });
  await sleep(warmMs);
  const stop = await side.meter.start(side.server.pid);
  counting = true;
  const t0 = performance.now();
  await sleep(windowMs);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await stop();
  running = false;
  await Promise.all(loops);
  return { lifecycles, seconds, failures, cpu };
}

export async function competitiveFigure(o: HistoryOptions, sides: { year: Side; fresh: Side }): Promise<FigureResult> {
  const panels = { year: await preparePanels(sides.year), fresh: await preparePanels(sides.fresh) };
  // Quick: longer than F5's 1.5 s and 2 s. A competitive lifecycle took about 2 s on a loaded
  // machine: with F5's times the first round counted none and the others whole multiples of 16.
  const warmMs = o.quick ? 3000 : (QUOTE_LIFETIME + 1) * 1000 + 500;
  const windowMs = o.quick ? 3000 : 6000;
  const rounds: Array<{ year: CompetitiveRound; fresh: CompetitiveRound }> = [];
  for (let r = 0; r < o.rounds; r++) {
    const x = await bothSides(r, sides, (side) => competitiveRound(side, panels[side.name], warmMs, windowMs, o.log));
    rounds.push(x);
    const rate = (c: CompetitiveRound) => (c.lifecycles / c.seconds).toFixed(1);
    o.log(`history: F13 round ${r + 1}: year ${rate(x.year)}/s (${x.year.failures} failed), fresh ${rate(x.fresh)}/s (${x.fresh.failures} failed)`);
    // The quotes' and RFQs' expiry jobs of the last window fire before the other side's.
    await sleep((QUOTE_LIFETIME + 1) * 1000);
  }
  for (const side of [sides.year, sides.fresh]) for (const t of [...panels[side.name].takers, ...panels[side.name].panels.flat()]) await t.rpc.close();
  const rate = (x: CompetitiveRound) => x.lifecycles / x.seconds;
  const pgMs = (x: CompetitiveRound) => ((x.cpu.postgres ?? NaN) * 1000) / x.lifecycles;
  return pairFigure(
    {
      id: 'F13',
      title: `competitive RFQ lifecycles/s (${PANEL} makers quoting, one replace, best accepted), year vs fresh`,
      unit: 'lifecycles/s',
      kind: 'rate',
      notes: [`${TAKERS} takers, each with its own panel of ${PANEL} makers, two-leg RFQs; warm-up ${warmMs} ms, window ${windowMs} ms per side per round`],
      extra: {
        failures: { year: rounds.map((x) => x.year.failures), fresh: rounds.map((x) => x.fresh.failures) },
        postgres_cpu_ms_per_lifecycle: { year: median(rounds.map((x) => pgMs(x.year))), fresh: median(rounds.map((x) => pgMs(x.fresh))) },
      },
    },
    rounds.map((x) => ({ legwork: rate(x.year), baseline: rate(x.fresh) })),
  );
}
