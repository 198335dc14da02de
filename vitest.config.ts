import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { chromiumPath } from './test/support/chromiumPath.ts';
import { PGBOUNCER } from './test/support/pgBouncer.ts';

const BROWSER_TESTS = 'test/**/*.browser.e2e.spec.ts';
// A machine without Chromium runs everything else and says so once; .ci/run installs it, so CI always runs them.
const withoutBrowser = !existsSync(chromiumPath);
if (withoutBrowser) {
  process.stderr.write(`\nNo Chromium at ${chromiumPath}: the browser tests (${BROWSER_TESTS}) are left out of this run.\nInstall it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it and runs them.\n\n`);
}

// The jobs, webhook and fault suites run a second time with the service behind a real PgBouncer in
// transaction mode (docs/running.md, "Behind PgBouncer"): test/support/pgBouncer.ts, serviceDatabase.
const THROUGH_PGBOUNCER = ['test/e2e/jobs.e2e.spec.ts', 'test/e2e/jobTakeover.e2e.spec.ts', 'test/e2e/webhookDelivery.e2e.spec.ts', 'test/faults/*.fault.spec.ts'];
const PGBOUNCER_TEST = 'test/e2e/pgBouncer.e2e.spec.ts';
const withoutPgBouncer = !existsSync(PGBOUNCER);
if (withoutPgBouncer) {
  process.stderr.write(`\nNo PgBouncer at ${PGBOUNCER}: the PgBouncer test (${PGBOUNCER_TEST}) is left out, and the suites that also run behind it (${THROUGH_PGBOUNCER.join(', ')}) run directly only.\nInstall it (Debian/Ubuntu: sudo apt-get install pgbouncer); .ci/run installs it and runs them.\n\n`);
}

export default defineConfig({
  // Not node_modules/.vite: a new entry there makes npm take the install as out of date, and the
  // README's `npx seqflow` then installs the checkout again, into npx's cache, before each command.
  cacheDir: '.cache/vitest',
  test: {
    exclude: [...configDefaults.exclude, ...(withoutBrowser ? [BROWSER_TESTS] : []), ...(withoutPgBouncer ? [PGBOUNCER_TEST] : [])],
    globalSetup: ['test/support/globalSetup.ts'],
    reporters: ['default', './test/support/summaryLineReporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file gets its own database; two cores on CI.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      // Each project names its own files: a project's include is added to (not put in place of) the root's.
      { extends: true, test: { name: 'direct', include: ['test/**/*.spec.ts', 'packages/*/test/**/*.spec.ts'] } },
      ...(withoutPgBouncer ? [] : [{ extends: true as const, test: { name: 'pgbouncer', include: THROUGH_PGBOUNCER, env: { SEQFLOW_TEST_THROUGH_PGBOUNCER: '1' } } }]),
    ],
  },
});
