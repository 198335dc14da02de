import type { Browser } from 'puppeteer-core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { createTestRuntime, serveApi, type TestRuntime } from '../support/testRuntime.ts';

describe('the API reference page at /api/v1/docs (Chromium)', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestRuntime('api-reference');
    ({ app, base } = await serveApi(t.runtime));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await t?.close();
  });

  it('renders the document with every request served by the service itself (it works offline)', async () => {
    const origin = new URL(base).origin;
    const elsewhere: string[] = [];
    const page = await browser.newPage();
    // Anything not from the service is refused, as it would fail on a machine without internet.
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return void request.continue();
      elsewhere.push(url);
      void request.abort();
    });
    const fetched: string[] = [];
    page.on('response', (response) => fetched.push(`${response.status()} ${new URL(response.url()).pathname}`));
    await page.setViewport({ width: 1280, height: 900 });
    const answer = await page.goto(`${base}/docs`);
    expect(answer?.status()).toBe(200);
    expect(await page.title()).toBe('Seqflow API reference');
    // Rendered from the document: its description, and the first operation (health) with the error codes it can answer.
    // The page renders section by section: wait for the first operation's answers, not just the sidebar.
    await page.waitForFunction(() => document.body.innerText.includes('URL_TOO_LONG') && document.body.innerText.includes('Run the production version of a flow synchronously'), { timeout: 30_000 }).catch(async (error: unknown) => {
      throw new Error(`the page did not render the document: ${String(error)}\n${(await page.evaluate(() => document.body.innerText)).slice(0, 3000)}`);
    });
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('Run the production version of a flow synchronously');
    expect(text).toContain('URL_TOO_LONG');
    // Nothing that leads to the vendor's cloud or its AI.
    expect(text).not.toMatch(/Ask AI|Generate MCP|Open API Client|Developer Tools/i);
    expect(fetched).toContain('200 /api/v1/openapi.json');
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
