import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { chromiumPath } from './chromiumPath.ts';

/** A headless Chromium driven through puppeteer-core (without one, vitest.config.ts leaves the browser tests out, saying so). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`No Chromium at ${chromiumPath}: apt-get install chromium (or set CHROMIUM_PATH)`);
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root in CI containers cannot use Chromium's user-namespace sandbox; the page under test is our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}
