/// <reference lib="dom" />
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { issueConsoleLink } from '../../src/commands/consoleLinkCommands.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { launchChromium } from '../support/chromium.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const SCREENSHOTS = path.resolve('test-output/console');
const PAGE = path.resolve('dist/console/index.html');

describe('the operator console page in Debian Chromium', () => {
  let t: TestRuntime;
  let model: ScriptedModelServer;
  let receiver: HttpsReceiver;
  let api: FastifyInstance;
  let consoleApp: FastifyInstance;
  let consoleBase: string;
  let workers: { stop(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let executionId: string;
  let deadRunId: string;
  let key: string;
  let receiverUp = false;
  const offOrigin: string[] = [];
  const requested: string[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const textOf = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

  beforeAll(async () => {
    if (!existsSync(PAGE)) throw new Error('The console page is not built: run `npm run build` first');
    mkdirSync(SCREENSHOTS, { recursive: true });
    model = await startScriptedModelServer();
    model.respond = () => ({ content: 'A short, kind answer.', usage: { prompt_tokens: 21, completion_tokens: 7 } });
    receiver = await startHttpsReceiver((req, res) => void (receiverUp ? res.writeHead(200).end('ok') : res.writeHead(503).end('receiver down for maintenance')));
    t = await createTestRuntime('console_page', {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50',
    });
    key = await seedProject(t.runtime, {
      answer: [
        { block: { name: 'draft', processor_type: 'llm', model: 'gpt-4o', prompt: 'Answer kindly: {{message}}' } },
        { block: { name: 'shape', processor_type: 'code', code: 'return { answer: input.previous_output, length: input.previous_output.length };' } },
      ],
    });
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    let base: string;
    ({ app: api, base } = await serveApi(t.runtime));
    const submit = async (callbackUrl?: string) => {
      const response = await fetch(`${base}/seq/acme/web/answer/${callbackUrl ? 'jobs' : 'execute'}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(callbackUrl ? { 'idempotency-key': 'order-4711' } : {}) },
        body: JSON.stringify({ message: 'What is an event log?', ...(callbackUrl ? { callbackUrl } : {}) }),
      });
      const body = (await response.json()) as { executionId?: string; detail?: { executionId?: string } };
      const id = body.executionId ?? body.detail?.executionId;
      if (!id) throw new Error(`the run was refused: ${JSON.stringify(body)}`);
      return id;
    };
    executionId = await submit();
    deadRunId = await submit(`${receiver.url}/hook`);
    // One run the model provider refuses: it fails (once the job above has had its answer).
    await until(async () => (await t.runtime.eventStore.readStream(`execution-${deadRunId}`)).some((e) => e.type === 'ExecutionCompleted'), 'the job to complete');
    model.script({ status: 400, errorBody: { error: { message: 'Invalid prompt', type: 'invalid_request_error' } } });
    await submit();
    consoleApp = await buildConsoleServer(t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 860 });
    page.on('request', (request) => {
      requested.push(`${request.url()} ${request.postData() ?? ''}`);
      if (!request.url().startsWith(consoleBase) && !request.url().startsWith('blob:') && !request.url().startsWith('data:')) offOrigin.push(request.url());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await workers?.stop();
    await consoleApp?.close();
    await api?.close();
    await t?.close();
    await receiver?.close();
    await model?.close();
  });

  it('asks for a sign-in link when no session is open', async () => {
    await page.goto(`${consoleBase}/`);
    await page.waitForSelector('main.signin');
    expect(await textOf('main.signin')).toContain('seqflow console link');
  });

  it('signs in with a one-time link and finds the test run in the Runs view', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'browser-test' }, testPrincipal);
    await page.goto(`${consoleBase}/login?token=${token}`);
    // The link's page asks first (a link preview must not use the link up); the button signs in.
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
    expect(page.url()).toBe(`${consoleBase}/#/runs`);
    await page.waitForSelector(`tr[data-execution-id="${executionId}"]`);
    const row = await textOf(`tr[data-execution-id="${executionId}"]`);
    expect(row).toContain('answer');
    expect(row).toContain('completed');
    expect(row).toContain('sync');
    await shot('runs');
  });

  it('opens the run: a timeline of its steps with the rendered prompt, output, model and tokens', async () => {
    await page.click(`tr[data-execution-id="${executionId}"] a`);
    await page.waitForSelector('ol.timeline li.step-completed');
    expect(await page.$$eval('ol.timeline .step-name', (names) => names.map((n) => (n as HTMLElement).innerText))).toEqual(['draft', 'shape']);
    await page.click('ol.timeline li:first-child .step-head');
    await page.waitForSelector('.step-detail');
    const detail = await textOf('.step-detail');
    expect(detail).toContain('Answer kindly: What is an event log?');
    expect(detail).toContain('A short, kind answer.');
    expect(detail).toContain('gpt-4o');
    expect(detail).toContain('21 + 7 tokens');
    expect(await textOf('dl.header')).toContain('28 tokens');
    // What it cost at gpt-4o's catalog prices when it ran: 21 × $2.50 + 7 × $10 per million tokens.
    expect(await textOf('dl.header .run-cost')).toBe('$0.000123');
    expect(await textOf('ol.timeline li:first-child .step-cost')).toBe('$0.000123');
    // The flow by its name and slug, and what the caller sent, on the run's page.
    expect(await textOf('dl.header .run-flow')).toContain('answer');
    expect(await textOf('dl.header .run-flow')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await textOf('dl.header .run-input')).toContain('What is an event log?');
    // The steps laid out in time, the llm step with its one request to the model inside its bar.
    expect(await page.$$eval('.waterfall-row', (rows) => rows.map((row) => row.getAttribute('data-step')))).toEqual(['draft', 'shape']);
    expect(await page.$$eval('.waterfall-row[data-step="draft"] .waterfall-call.call-answered', (calls) => calls.length)).toBe(1);
    expect(await page.$$eval('.waterfall-row[data-step="shape"] .waterfall-call', (calls) => calls.length)).toBe(0);
    const [draftBar, shapeBar] = await page.$$eval('.waterfall-bar', (bars) => bars.map((bar) => bar.getBoundingClientRect().left));
    expect(shapeBar).toBeGreaterThan(draftBar!);
    await shot('run-detail');
  });

  it('draws runs and failed runs per flow over the last 24 hours above the list', async () => {
    await page.goto(`${consoleBase}/#/runs`);
    await page.waitForSelector('figure.activity-runs[data-total="3"] .recharts-bar-rectangle');
    expect(await page.$eval('figure.activity-failed', (figure) => figure.getAttribute('data-total'))).toBe('1');
    expect(await textOf('figure.activity-runs')).toContain('answer');
    // The window's cost in the caption: the runs' llm calls, $0.000123 each.
    expect(await textOf('figure.activity-runs .activity-cost')).toMatch(/^ · \$0\.000(123|246|369)$/);
    expect(await page.$$eval('figure.activity-failed .recharts-bar-rectangle', (bars) => bars.length)).toBeGreaterThan(0);
    // Drawn at its figure's width on a first load, not as a thumbnail.
    await page.reload();
    await page.waitForSelector('figure.activity-runs .recharts-bar-rectangle');
    const [figureWidth, chartWidth] = await page.$eval('figure.activity-runs', (figure) => [figure.getBoundingClientRect().width, Math.max(...Array.from(figure.querySelectorAll('svg'), (svg) => svg.getBoundingClientRect().width))]);
    expect(figureWidth).toBeGreaterThan(300);
    expect(chartWidth).toBeGreaterThan(figureWidth! * 0.9);
    await shot('runs-activity');
    // It follows the list's filters: no backtest runs here, so nothing to draw; production again, the three runs.
    await page.select('select[name="kind"]', 'backtest');
    await page.waitForFunction(() => document.querySelector('details.activity p.empty')?.textContent === 'No runs in this window.');
    await page.select('select[name="kind"]', 'production');
    await page.waitForSelector('figure.activity-runs[data-total="3"]');
  });

  const find = async (text: string) => {
    await page.goto(`${consoleBase}/#/runs`);
    await page.waitForSelector('form.run-lookup input[name="search"]');
    // Typed over what an earlier search left in the box (the page may not have reloaded).
    await page.click('form.run-lookup input[name="search"]');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.type('form.run-lookup input[name="search"]', text);
    await page.click('form.run-lookup button[type="submit"]');
  };

  it('finds a run by the execution id pasted into the Runs view, and by the Idempotency-Key its caller sent', async () => {
    await find(deadRunId);
    await page.waitForFunction((id) => document.querySelector('dl.header')?.textContent?.includes(id), { timeout: 30_000 }, deadRunId);
    expect(page.url()).toBe(`${consoleBase}/#/runs/${deadRunId}`);
    await find('order-4711');
    await page.waitForFunction((id) => document.querySelector('dl.header')?.textContent?.includes(id), { timeout: 30_000 }, deadRunId);
    expect(page.url()).toBe(`${consoleBase}/#/runs/${deadRunId}`);
    await find('order-4712');
    await page.waitForSelector('.run-search p.empty');
    expect(await textOf('.run-search p.empty')).toContain('Nothing found for “order-4712”');
    // The list itself leaves test and backtest runs out until asked for.
    await page.goto(`${consoleBase}/#/runs`);
    await page.waitForSelector('form.filters select[name="kind"]');
    expect(await page.$eval('form.filters select[name="kind"]', (select) => (select as HTMLSelectElement).value)).toBe('production');
    await shot('runs-lookup');
  });

  it("lists an API key's runs when the key is pasted, and picks flows by name", async () => {
    await find(key);
    const keyId = key.split('_')[2]!;
    await page.waitForFunction((id) => Array.from(document.querySelectorAll('form.filters input')).some((input) => (input as HTMLInputElement).value === id), { timeout: 30_000 }, keyId);
    await page.waitForSelector(`tr[data-execution-id="${executionId}"]`);
    expect(await page.$$eval('table.runs tbody tr', (rows) => rows.length)).toBe(3);
    // The key's secret left the box, and was never sent: only its id was.
    expect(requested.filter((r) => r.includes(key.split('_')[3]!))).toEqual([]);
    expect(await page.$eval('form.run-lookup input[name="search"]', (input) => (input as HTMLInputElement).value)).toBe(key.split('_').slice(0, 3).join('_'));
    // The flow filter names flows, once a project is chosen.
    await page.select('form.filters label:nth-of-type(1) select', await page.$eval('form.filters label:nth-of-type(1) select option:nth-child(2)', (o) => (o as HTMLOptionElement).value));
    await page.select('form.filters label:nth-of-type(2) select', await page.$eval('form.filters label:nth-of-type(2) select option:nth-child(2)', (o) => (o as HTMLOptionElement).value));
    await page.waitForSelector('form.filters select[name="flow"] option:nth-child(2)');
    expect(await page.$$eval('form.filters select[name="flow"] option', (options) => options.map((o) => (o as HTMLOptionElement).innerText))).toEqual(['all', 'answer (answer)']);
    await shot('runs-by-key');
  });

  it('redelivers a dead-lettered delivery from the Deliveries view and sees its status change', async () => {
    // Keys typed in a field are the field's: the shortcut needs the focus out of the filters.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('2');
    const row = `tr[data-delivery-id] a[href="#/runs/${deadRunId}"]`;
    await page.waitForFunction((sel) => document.querySelector(sel)?.closest('tr')?.querySelector('.chip')?.textContent === 'dead-lettered', { timeout: 30_000 }, row);
    await shot('deliveries');
    receiverUp = true;
    await page.evaluate((sel) => (document.querySelector(sel)!.closest('tr')!.querySelector('td:last-child button') as HTMLButtonElement).click(), row);
    await page.waitForFunction((sel) => document.querySelector(sel)?.closest('tr')?.querySelector('.chip')?.textContent === 'succeeded', { timeout: 30_000 }, row);
    await shot('deliveries-after-redelivery');
  });

  it('shows the flow, its production version and its versions in the Flows view', async () => {
    await page.keyboard.press('3');
    await page.waitForSelector('form.filters select');
    const projectId = await page.$eval('form.filters select optgroup option', (o) => (o as HTMLOptionElement).value);
    await page.select('form.filters select', projectId);
    await page.waitForSelector('button.link');
    await page.waitForFunction(() => document.querySelector('td.flow-cost')?.textContent?.startsWith('$'));
    expect(await textOf('td.flow-cost')).toMatch(/^\$0\.000(123|246|369|492)$/);
    // The project's retention: kept until a period is set, then the project's own applies.
    await page.waitForFunction(() => document.querySelector('dd.retention-applied')?.textContent === 'kept');
    await page.type('form.retention-project-form input', '7');
    await page.click('form.retention-project-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('dd.retention-applied')?.textContent === '7 days');
    expect(await textOf('dd.retention-project')).toBe('7 days');
    expect(await textOf('dd.retention-organization')).toBe('kept');
    await shot('flows-retention');
    await page.click('form.retention-project-form input', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.click('form.retention-project-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('dd.retention-applied')?.textContent === 'kept');
    await page.click('button.link');
    await page.waitForSelector('tr.production');
    expect(await textOf('tr.production')).toContain('v1');
    await shot('flows');
  });

  // Many steps, each waited for: on a loaded machine the whole takes longer than one wait's bound.
  it('starts a backtest of the flow, watches it fill in live, and opens a pair side by side with the changes highlighted', { timeout: 180_000 }, async () => {
    model.respond = () => ({ content: 'A longer and kinder answer.', usage: { prompt_tokens: 21, completion_tokens: 9 } });
    await page.waitForSelector('form.backtest-start select[name="target"] option[value="1"]');
    await page.select('form.backtest-start select[name="target"]', '1');
    await page.click('form.backtest-start input[name="last"]');
    await page.keyboard.down('Control');
    await page.keyboard.press('A');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.type('form.backtest-start input[name="last"]', '3');
    await page.click('form.backtest-start button[type="submit"]');
    // The row fills in from the live events until the backtest has finished.
    await page.waitForFunction(() => document.querySelector('table.backtests tbody tr .chip')?.textContent === 'finished', { timeout: 60_000 });
    expect(await textOf('table.backtests tbody tr')).toMatch(/3\/3/);
    expect(await page.$eval('form.backtest-start input[name="last"]', (input) => (input as HTMLInputElement).value)).toBe('3');
    await page.waitForFunction(() => document.querySelectorAll('table.pairs tbody tr .chip-different').length === 3, { timeout: 30_000 });
    await page.click(`table.pairs tr[data-execution-id="${executionId}"] button.link`);
    await page.waitForSelector('.side-by-side tr.changed');
    const changed = await page.$$eval('.side-by-side tr.changed', (rows) => rows.map((row) => (row as HTMLElement).innerText));
    expect(changed.join('\n')).toContain('A short, kind answer.');
    expect(changed.join('\n')).toContain('A longer and kinder answer.');
    expect(await page.$$eval('.side-by-side tr.changed td:first-child', (cells) => cells.map((c) => (c as HTMLElement).innerText).sort())).toEqual(['answer', 'length']);
    await shot('backtest-pair');

    // A recorded run becomes a test case of its flow from its page.
    page.once('dialog', (dialog) => void dialog.accept('kind answer'));
    await page.goto(`${consoleBase}/#/runs/${executionId}`);
    await page.waitForSelector('button.make-test-case');
    await page.click('button.make-test-case');
    await page.waitForSelector('p.notice');
    expect(await textOf('p.notice')).toContain('Test case “kind answer” added');

    // Its data erased from the same page (the test case keeps its own copy): the run says so, and offers neither again.
    page.once('dialog', (dialog) => void dialog.accept('GDPR request 12'));
    await page.click('button.erase-data');
    await page.waitForSelector('p.data-erased');
    expect(await textOf('p.data-erased')).toMatch(/Data erased .*GDPR request 12/);
    expect(await page.$('button.erase-data')).toBeNull();
    expect(await page.$('button.make-test-case')).toBeNull();
  });

  it('shows every live process, the projections and their lag in the System view', async () => {
    await page.keyboard.press('4');
    await page.waitForSelector('table.projections td.lag');
    const lags = await page.$$eval('table.projections td.lag', (cells) => cells.map((c) => (c as HTMLElement).innerText));
    expect(lags.length).toBeGreaterThan(5);
    expect(lags.every((lag) => /^\d+$/.test(lag))).toBe(true);
    expect(await textOf('table.projections')).toContain('runs');
    // Every live process from its runner lease's report: here the test's own, with its tasks.
    await page.waitForSelector('table.processes tr[data-process] td.tasks span.task');
    expect(await textOf('table.processes')).toMatch(/runner-lease/);
    // The watchdog's last check in this process: nothing stuck here (a finding is a row with a link).
    await page.waitForFunction(() => document.body.innerText.includes('Nothing stuck (checked'));
    await shot('system');
  });

  it('reads in a narrow window without the page scrolling sideways, and never leaves its origin', async () => {
    await page.setViewport({ width: 390, height: 800 });
    await page.keyboard.press('1');
    await page.waitForSelector(`tr[data-execution-id="${executionId}"]`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('runs-narrow');
    expect(offOrigin).toEqual([]);
  });
});
