/**
 * The long variant of the test suite (`npm run test:long`, run by `.ci/run`) sets LEGWORK_LONG=1:
 * the property and race tests then repeat at their full count, and the latency-ratio tests run
 * (they measure a p99 ratio, so they run in a jest process of their own on an otherwise idle
 * machine). `npm test` runs every check with fewer repetitions (docs/conventions.md, "Tests").
 */
const LONG = process.env.LEGWORK_LONG === '1';

/** `fast` repetitions in `npm test`, `long` in the long variant. */
export function repetitions(fast: number, long: number): number {
  return LONG ? long : fast;
}

/** A test that only the long variant runs (`it.skip` in `npm test`, so the summary counts it as skipped). */
export const longIt: jest.It = LONG ? it : it.skip;
