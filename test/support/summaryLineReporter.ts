import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read. An
 * error no test caught (an unhandled rejection, an error event nobody listens to) counts as a
 * failure there and fails the run: it means some test or the code under test lost track of an error.
 */
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    if (unhandledErrors.length > 0) {
      counts.failed += unhandledErrors.length;
      process.exitCode = 1;
      process.stdout.write(`\nUnhandled errors: ${unhandledErrors.length} (counted as failures)\n`);
    }
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
