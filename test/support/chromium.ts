import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run), or CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A headless Chromium driven through puppeteer-core; the tests fail, not skip, without one. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`No Chromium at ${chromiumPath}: apt-get install chromium (or set CHROMIUM_PATH)`);
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root in CI containers cannot use Chromium's user-namespace sandbox; the page under test is our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}
