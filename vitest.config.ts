import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { chromiumPath } from './test/support/chromiumPath.ts';

const BROWSER_TESTS = 'test/**/*.browser.e2e.spec.ts';
// A machine without Chromium runs everything else and says so once; .ci/run installs it, so CI always runs them.
const withoutBrowser = !existsSync(chromiumPath);
if (withoutBrowser) {
  process.stderr.write(`\nNo Chromium at ${chromiumPath}: the browser tests (${BROWSER_TESTS}) are left out of this run.\nInstall it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it and runs them.\n\n`);
}

export default defineConfig({
  // Not node_modules/.vite: a new entry there makes npm take the install as out of date, and the
  // README's `npx seqflow` then installs the checkout again, into npx's cache, before each command.
  cacheDir: '.cache/vitest',
  test: {
    include: ['test/**/*.spec.ts', 'packages/*/test/**/*.spec.ts'],
    exclude: [...configDefaults.exclude, ...(withoutBrowser ? [BROWSER_TESTS] : [])],
    globalSetup: ['test/support/globalSetup.ts'],
    reporters: ['default', './test/support/summaryLineReporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file gets its own database; two cores on CI.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
