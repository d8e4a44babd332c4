import type { Trader } from '../lib/exchange';
import { summary } from '../lib/histogram';
import { type FigureResult, notMeasured } from '../lib/report';
import { median } from '../lib/stats';
import { type F5Setup, type LegworkRound, PAIRS, legworkRound } from './f5-rounds';

/**
 * F14: the journal head's hold per fill under F5's load (docs/receipts.md: fills stage their
 * receipts and one appender per database chains them in batches, holding the head for the batch's
 * own write). From the server's legwork_journal_head_hold_seconds over each F5 round's phase A,
 * which records a batch's hold (its UPDATE of the head to its commit's end, both on the database's
 * clock) divided among its receipts: the mean is the hold per fill. Also
 * F5's fills per second at 16 pairs (the rounds) and at 32 pairs (one more window on the same
 * server, 16 pairs added).
 */

const WIDE_PAIRS = 2 * PAIRS;

/** One uncounted F5 window with twice the pairs (the extra traders are pushed to `traders` to be closed). */
export async function widerRound(s: F5Setup, traders: Trader[]): Promise<LegworkRound> {
  const more = async (roles: string[], deposit: string, subscribe: boolean) => {
    const t = await s.ex.connect(await s.ex.account(roles, deposit), subscribe);
    traders.push(t);
    return t;
  };
  const takers = await Promise.all(Array.from({ length: WIDE_PAIRS - PAIRS }, () => more(['taker'], '100000000', true)));
  const makers = await Promise.all(Array.from({ length: WIDE_PAIRS - PAIRS }, () => more(['quoter'], '1000000000', false)));
  const wide = await legworkRound({ ...s, takers: [...s.takers, ...takers], makers: [...s.makers, ...makers] }, false);
  s.ctx.log(`F14: ${(wide.lifecycles / wide.seconds).toFixed(1)} fills/s at ${WIDE_PAIRS} pairs (${wide.failures} failed)`);
  return wide;
}

export function f14NotMeasured(reason: string): FigureResult {
  return notMeasured('F14', 'journal head held per fill, mean, under F5 load', 'none (absolute)', '<= 1 ms', 'not measured', reason);
}

export function f14Figure(rounds: LegworkRound[], wide: LegworkRound | null): FigureResult {
  const held = rounds.map((r) => ({ r, h: summary(r.head.hold) })).filter((x) => x.h !== null);
  if (held.length === 0) return f14NotMeasured('the server has no journal head histograms');
  const mean = median(held.map((x) => x.h!.mean_ms));
  const wideHold = wide ? summary(wide.head.hold) : null;
  const perSecond = (r: LegworkRound) => r.lifecycles / r.seconds;
  return {
    id: 'F14',
    title: `journal head held per fill (mean), under F5 load (${PAIRS} pairs)`,
    unit: 'ms',
    baselineTitle: 'none (absolute target)',
    status: 'measured',
    legwork: mean,
    baseline: null,
    ratioOf: 'absolute: mean ms per fill',
    ratio: mean,
    target: '<= 1 ms',
    met: mean <= 1,
    rounds: held.map(({ r, h }) => ({
      legwork: h!.mean_ms,
      baseline: null,
      p50_ms: h!.p50_ms,
      p99_ms: h!.p99_ms,
      receipts: h!.count,
      held_share_of_window: r.head.hold!.sum / r.seconds,
      fills_per_s: perSecond(r),
    })),
    extra: {
      hold_p99_ms: median(held.map((x) => x.h!.p99_ms)),
      hold_p50_ms: median(held.map((x) => x.h!.p50_ms)),
      wait_mean_ms: median(held.map((x) => summary(x.r.head.wait)?.mean_ms ?? NaN)),
      fills_per_s: {
        [`${PAIRS}_pairs`]: median(held.map((x) => perSecond(x.r))),
        [`${WIDE_PAIRS}_pairs`]: wide ? perSecond(wide) : null,
      },
      [`${WIDE_PAIRS}_pairs`]: wide
        ? {
            hold_mean_ms: wideHold?.mean_ms ?? null,
            hold_p99_ms: wideHold?.p99_ms ?? null,
            failures: wide.failures,
          }
        : null,
    },
    notes: [
      "legwork_journal_head_hold_seconds records each batch's hold divided among its receipts: from the write's UPDATE of the head to its commit's end on the database's clock (the backend going idle, pg_stat_activity), not to the server reading the reply; the mean is the hold per fill (revert receipts, if any, count as fills)",
      `fills per second: F5's lifecycles/s at ${PAIRS} pairs (median of the rounds) and one uncounted window at ${WIDE_PAIRS} pairs on the same server`,
    ],
  };
}
