const Sequencer = require('@jest/test-sequencer').default;

/**
 * Files far slower than their size says: each boots its own apps on data directories it migrates
 * from nothing (backups, the private database, the schema, the embedded start) or lists hundreds
 * of rounds. Jest orders a run slowest first only from the timings of an earlier run in its cache;
 * without them (a fresh clone: the README's `npm test`) it orders by file size, and one of these
 * started last leaves the other worker idle for most of a minute. They go first when jest has no
 * timings, in this order; the rest keep jest's order.
 */
const SLOW_FIRST = ['backup-embedded', 'private-database', 'instruments-cost', 'console', 'schema', 'limits', 'embedded', 'rfq-expiry'];

const rank = (test) => {
  const i = SLOW_FIRST.findIndex((name) => test.path.endsWith(`/${name}.e2e-spec.ts`));
  return i === -1 ? SLOW_FIRST.length : i;
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    // Array.prototype.sort is stable: the others keep jest's size order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;
