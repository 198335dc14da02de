/// <reference lib="dom" />
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { addMember } from '../../src/commands/organizationCommands.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { launchChromium } from '../support/chromium.ts';
import { signInToConsole } from '../support/consoleSignIn.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * Issue 61 point 5 in the console, in Debian Chromium: a run waits at an approval block; the Runs
 * view shows it in the queue with the text its approver reads; an admin of the organization
 * approves it there with a comment; the queue empties, the run goes on as a job, and its page shows
 * the approval step with the decision as its output.
 */
describe("the console's approvals queue", () => {
  let s: SeededService;
  let consoleApp: FastifyInstance;
  let workers: { stop(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let consoleBase: string;

  beforeAll(async () => {
    s = await startSeededService('console_approval', {
      refund: [
        { block: { name: 'manager', processor_type: 'approval', processor_config: { approval: { text: 'Refund {{parameters.amount}} to {{message}}?', approvers: { roles: ['admin'] } } } } },
        { block: { name: 'after', processor_type: 'code', code: 'return { decision: input.steps.manager.decision, by: input.steps.manager.decided_by };' } },
      ],
    });
    await addMember(s.t.runtime.commands, { organizationSlug: 'acme', userSubject: 'rita', role: 'admin' }, testPrincipal);
    await s.t.runtime.projections.start();
    workers = await startWorkers(s.t.runtime);
    consoleApp = await buildConsoleServer(s.t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await consoleApp?.close();
    await workers?.stop();
    await s?.close();
  });

  it('lists the waiting run with its text, approves it with a comment, and the run ends with the decision as the step’s output', async () => {
    const started = await s.execute('refund', { message: 'carol@example.com', parameters: { amount: '40 EUR' } });
    expect(started.status).toBe(202);
    const executionId = started.body.executionId!;

    await signInToConsole(page, consoleBase, s.t.runtime.commands, 'rita');
    // The run's page shows the step that waits, and for whom.
    await page.goto(`${consoleBase}/#/runs/${executionId}`);
    await page.waitForSelector('.chip-waiting');
    expect(await page.$$eval('.chip-waiting', (chips) => chips.map((c) => (c as HTMLElement).innerText))).toContain('waiting for approval');
    await page.goto(`${consoleBase}/#/runs`);
    await page.waitForSelector('.approval .approval-text');
    expect(await page.$eval('.approval .approval-text', (p) => (p as HTMLElement).innerText)).toBe('Refund 40 EUR to carol@example.com?');
    expect(await page.$eval('.approval', (li) => (li as HTMLElement).innerText)).toContain('role admin');
    await page.type('.approval input[name="approval-comment"]', 'loyal customer');
    await page.click('.approval button.approval-approve');
    // Decided: the queue has nothing left to show.
    await page.waitForFunction(() => document.querySelector('.approval') === null);

    let job: { status?: string; result?: unknown } = {};
    await until(async () => {
      job = (await (await fetch(`${s.base}/seq/acme/web/refund/jobs/${executionId}`, { headers: { authorization: `Bearer ${s.key}` } })).json()) as typeof job;
      return job.status === 'completed';
    }, 'the run to go on and end');
    expect(job.result).toEqual({ decision: 'approved', by: 'rita' });

    await page.goto(`${consoleBase}/#/runs/${executionId}`);
    await page.waitForSelector('.waterfall-row[data-step="manager"]');
    await page.waitForSelector('.waterfall-row[data-step="after"]');
  });
});
