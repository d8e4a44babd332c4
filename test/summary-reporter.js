const { writeFileSync } = require('node:fs');

/**
 * Prints one plain closing line that any CI can read: "tests: N passed, N failed" (", N skipped").
 * With LEGWORK_TIMES=<file> it also writes the test files ranked by their duration, slowest first:
 * the list that decides what `npm test` runs and what it leaves to `npm run test:long`.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0)} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`\n${line}\n`);
    if (process.env.LEGWORK_TIMES) writeFileSync(process.env.LEGWORK_TIMES, ranking(results));
  }
}

/** One line a file: seconds, pass or fail, the path relative to the repository. */
function ranking(results) {
  return results.testResults
    .map((r) => ({
      seconds: (r.perfStats.end - r.perfStats.start) / 1000,
      status: r.numFailingTests || r.testExecError ? 'FAIL' : 'pass',
      path: r.testFilePath,
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .map((r) => `${r.seconds.toFixed(1).padStart(7)} s  ${r.status}  ${r.path.replace(`${process.cwd()}/`, '')}\n`)
    .join('');
}
module.exports = SummaryReporter;
