/// <reference lib="dom" />
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { launchChromium } from '../support/chromium.ts';
import { signInToConsole } from '../support/consoleSignIn.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';

describe("a skipped step on the console's run page, in Debian Chromium", () => {
  let s: SeededService;
  let consoleApp: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let executionId: string;

  beforeAll(async () => {
    s = await startSeededService('console_skipped', {
      gated: [
        { block: { name: 'first', processor_type: 'passthrough' } },
        { block: { name: 'maybe', processor_type: 'passthrough', run_if: 'input.parameters.go = true' } },
        { block: { name: 'last', processor_type: 'code', code: 'return { skipped: input.steps.maybe === null };' } },
      ],
    });
    await s.t.runtime.projections.start();
    const answer = await s.execute('gated', { message: 'hi', parameters: { go: false } });
    if (!answer.body.executionId) throw new Error(`the run was refused: ${JSON.stringify(answer.body)}`);
    executionId = answer.body.executionId;
    consoleApp = await buildConsoleServer(s.t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await consoleApp?.close();
    await s?.close();
  });

  it('marks the step skipped in the timeline and the waterfall, and shows its condition and the values it read', async () => {
    const consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    await signInToConsole(page, consoleBase, s.t.runtime.commands);
    await page.waitForSelector(`tr[data-execution-id="${executionId}"] a`);
    await page.click(`tr[data-execution-id="${executionId}"] a`);
    await page.waitForSelector('ol.timeline li.step-skipped');
    const names = (selector: string) => page.$$eval(selector, (els) => els.map((el) => (el as HTMLElement).innerText));
    expect(await names('ol.timeline .step-name')).toEqual(['first', 'maybe', 'last']);
    expect(await names('ol.timeline li.step-skipped .step-name')).toEqual(['maybe']);
    expect(await page.$eval('.waterfall-row[data-step="maybe"] .waterfall-label', (el) => (el as HTMLElement).innerText)).toBe('skipped');
    expect(await page.$$eval('.waterfall-row[data-step="maybe"] .waterfall-bar.bar-skipped', (bars) => bars.length)).toBe(1);
    await page.click('ol.timeline li.step-skipped .step-head');
    await page.waitForSelector('.step-detail');
    const detail = await page.$eval('.step-detail', (el) => (el as HTMLElement).innerText);
    expect(detail).toContain('input.parameters.go = true');
    expect(detail).toContain('"input.parameters.go": false');
  });
});
