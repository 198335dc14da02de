/// <reference lib="dom" />
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { scheduleStream } from '../../src/domain/schedules/scheduleEvents.ts';
import { addSchedule } from '../../src/schedules/scheduleCommands.ts';
import { createScheduleSweep } from '../../src/schedules/scheduleSweep.ts';
import { launchChromium } from '../support/chromium.ts';
import { signInToConsole } from '../support/consoleSignIn.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

describe("a flow's schedules on the console's Flows view, in Debian Chromium", () => {
  let s: SeededService;
  let consoleApp: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let scheduleId: string;
  let executionId: string;

  beforeAll(async () => {
    s = await startSeededService('console_schedules', { nightly: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    await s.t.runtime.projections.start();
    const flowId = (await s.t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'nightly').executeTakeFirstOrThrow()).id;
    const managing = { db: s.t.runtime.db, commands: s.t.runtime.commands, guard: s.t.runtime.execution.guard, callbacks: { plainHttpInAllowedRanges: false } };
    scheduleId = (await addSchedule(managing, { flowId, cron: '0 7 * * *', timezone: 'Asia/Tokyo', input: { message: 'the night' } }, testPrincipal)).scheduleId;
    await s.t.runtime.projections.catchUp();
    // One firing, as a worker's sweep makes it a day later.
    const sweep = createScheduleSweep({ db: s.t.runtime.db, commands: s.t.runtime.commands, runs: s.t.runtime.runs, logger: s.t.runtime.logger, intervalMs: 1000, rules: { missedAfterMs: 2 * 86_400_000, maxCatchUp: 1 } });
    expect(await sweep.sweepOnce(new Date(Date.now() + 86_400_000))).toBe(1);
    executionId = (await s.t.runtime.eventStore.readStream(scheduleStream(scheduleId))).flatMap((e) => (e.type === 'ScheduleFired' ? [(e.data as { executionId: string }).executionId] : []))[0]!;
    await s.t.runtime.projections.catchUp();
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

  it('lists the schedule with its last firing and its run, marks the run scheduled, and pauses it', async () => {
    const consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    await signInToConsole(page, consoleBase, s.t.runtime.commands);
    // The Runs view marks the job a schedule started.
    await page.waitForSelector(`tr[data-execution-id="${executionId}"] small.by-schedule`);

    await page.goto(`${consoleBase}/#/flows`);
    await page.waitForSelector('form.filters select optgroup option');
    const projectId = await page.$eval('form.filters select optgroup option', (o) => (o as HTMLOptionElement).value);
    await page.select('form.filters select', projectId);
    await page.waitForSelector('button.link');
    await page.click('button.link');
    const row = `table.schedules tr[data-schedule="${scheduleId}"]`;
    await page.waitForSelector(row);
    const text = await page.$eval(row, (el) => (el as HTMLElement).innerText);
    expect(text).toContain('0 7 * * *');
    expect(text).toContain('Asia/Tokyo'); // no daylight saving: one firing in any 24 hours
    expect(text).toContain('1 / 0');
    expect(await page.$eval(`${row} a`, (a) => (a as HTMLAnchorElement).getAttribute('href'))).toBe(`#/runs/${executionId}`);
    expect(await page.$eval(`${row} .schedule-status`, (el) => (el as HTMLElement).innerText)).toBe('active');

    await page.evaluate((sel) => Array.from(document.querySelectorAll(`${sel} button`)).find((b) => b.textContent === 'Pause')!.dispatchEvent(new MouseEvent('click', { bubbles: true })), row);
    await page.waitForFunction((sel) => document.querySelector(`${sel} .schedule-status`)?.textContent === 'paused', { timeout: 30_000 }, row);
    await until(async () => (await s.t.runtime.eventStore.readStream(scheduleStream(scheduleId))).some((e) => e.type === 'SchedulePaused' && e.metadata.principal.id === 'link:browser-test'), 'the pause in the log, by the operator');
  });
});
