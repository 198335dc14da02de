/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { launchChromium } from '../support/chromium.ts';
import { signInToConsole } from '../support/consoleSignIn.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

/**
 * Issue 61 in the console, in Debian Chromium: an operator sets an organization's secret in the
 * Secrets panel, a flow's http step sends it to a real HTTPS server that fails once and then echoes
 * it back, and the run's page draws both requests inside the step's bar, the failed one marked,
 * with the secret read as [secret:<name>] in the step's input and output.
 */
describe("an http step on the console's run page, with a secret set in the console", () => {
  let receiver: HttpsReceiver;
  let s: SeededService;
  let consoleApp: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let consoleBase: string;
  const token = `tok_${randomBytes(12).toString('hex')}`;
  let tries = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((request, res) => {
      if (tries++ === 0) return res.writeHead(503).end('warming up');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ customer: 'Carol', auth: request.headers.authorization }));
    });
    s = await startSeededService('console_http_step', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile });
    await s.t.runtime.projections.start();
    consoleApp = await buildConsoleServer(s.t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await consoleApp?.close();
    await s?.close();
    await receiver?.close();
  });

  it('sets the secret in the Secrets panel, shows its name and version only, and never the value again', async () => {
    await signInToConsole(page, consoleBase, s.t.runtime.commands);
    await page.goto(`${consoleBase}/#/flows`);
    await page.waitForSelector('form.filters select optgroup option');
    const projectId = await page.$eval('form.filters select optgroup option', (o) => (o as HTMLOptionElement).value);
    await page.select('form.filters select', projectId);
    await page.waitForSelector('.secrets-empty');
    await page.type('.secret-form input[name="secret-name"]', 'crm_token');
    await page.type('.secret-form input[name="secret-value"]', token);
    await page.click('.secret-form button[type="submit"]');
    await page.waitForSelector('table.secrets tr.secret');
    expect(await page.$$eval('table.secrets tr.secret', (rows) => rows.map((row) => (row as HTMLElement).innerText.split('\t').slice(0, 2)))).toEqual([['crm_token', 'v1']]);
    expect(await page.$eval('.secret-form input[name="secret-value"]', (input) => (input as HTMLInputElement).value)).toBe('');
    expect(await page.content()).not.toContain(token);
  });

  it("draws the step's two requests in its bar, the failed one marked, and reads the secret by name in its input and output", async () => {
    await importFlow(
      s.t.runtime.commands,
      { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'lookup', name: 'lookup', steps: [{ block: { name: 'crm', processor_type: 'http', processor_config: { request: { method: 'GET', url: `${receiver.url}/customers/7`, headers: { authorization: 'Bearer {{secrets.crm_token}}' } } } } }] }, production: true },
      testPrincipal,
    );
    await s.t.runtime.projections.catchUp();
    const answer = await s.execute('lookup', { message: 'hi' });
    if (!answer.body.executionId) throw new Error(`the run was refused: ${JSON.stringify(answer.body)}`);
    expect(receiver.received.map((r) => r.headers.authorization)).toEqual([`Bearer ${token}`, `Bearer ${token}`]);

    await page.goto(`${consoleBase}/#/runs/${answer.body.executionId}`);
    const row = '.waterfall-row[data-step="crm"]';
    await page.waitForSelector(`${row} .waterfall-call`);
    expect(await page.$$eval(`${row} .waterfall-call`, (calls) => calls.map((call) => call.getAttribute('title')))).toEqual([expect.stringMatching(/^request \(503\) 1: failed/), expect.stringMatching(/^request \(200\) 2: answered/)]);
    expect(await page.$eval(`${row} .waterfall-label`, (el) => (el as HTMLElement).innerText)).toContain('2 requests, 1 failed');
    await page.click('ol.timeline li .step-head');
    await page.waitForSelector('.step-detail');
    const detail = await page.$eval('.step-detail', (el) => (el as HTMLElement).innerText);
    expect(detail).toContain('Bearer [secret:crm_token]');
    expect(detail).toContain('Carol');
    expect(await page.content()).not.toContain(token);
  });
});
