/// <reference lib="dom" />
import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import { issueConsoleLink } from '../../src/commands/consoleLinkCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { launchChromium } from '../support/chromium.ts';
import { type EmbeddedOAuthService, startEmbeddedOAuthService } from '../support/embeddedOAuthService.ts';
import { AssistantAuth, REDIRECT_URL } from '../support/oauthAssistant.ts';
import { freePort, testPrincipal } from '../support/testRuntime.ts';

const PAGE = 'dist/console/index.html';

describe('an assistant signs in from a browser: its request approved in the console, no shell on the server', () => {
  let service: EmbeddedOAuthService;
  let consoleApp: FastifyInstance;
  let consoleBase: string;
  let browser: Browser;
  /** The member's tab where the assistant's sign-in page opened, and the console's tab. */
  let member: Page;
  let operator: Page;
  /** Where the member's browser was sent back to the assistant (its redirect URI, with the code). */
  let returnedTo: string | undefined;
  let loopback: Server;
  const auth = new AssistantAuth();
  let transport: StreamableHTTPClientTransport;

  const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);
  const typeInto = async (page: Page, selector: string, value: string) => {
    await page.click(selector, { count: 3 });
    await page.type(selector, value);
  };

  beforeAll(async () => {
    if (!existsSync(PAGE)) throw new Error('The console page is not built: run `npm run build` first');
    const consolePort = await freePort();
    consoleBase = `http://127.0.0.1:${consolePort}`;
    service = await startEmbeddedOAuthService('assistant_connect', { alice: 'member' }, { SEQFLOW_CONSOLE_URL: consoleBase });
    await createOrganization(service.t.runtime.commands, { slug: 'globex', name: 'Globex' }, testPrincipal);
    await service.t.runtime.projections.catchUp();
    consoleApp = await buildConsoleServer(service.t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: consolePort });
    browser = await launchChromium();
    member = await browser.newPage();
    operator = await browser.newPage();
    // The assistant's loopback listener, as an assistant runs one: the browser comes back to it with the code.
    const redirect = new URL(REDIRECT_URL);
    loopback = createServer((request, response) => {
      const url = new URL(request.url ?? '/', REDIRECT_URL);
      if (url.pathname === redirect.pathname) returnedTo = url.href;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('You may close this window.');
    });
    await new Promise<void>((resolve) => loopback.listen(Number(redirect.port), redirect.hostname, resolve));
    operator.on('dialog', (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => loopback?.close(resolve));
    await consoleApp?.close();
    await service?.close();
  });

  it('shows the sign-in request code and links to the console; Continue before approval is refused', async () => {
    transport = new StreamableHTTPClientTransport(new URL(service.mcpUrl), { authProvider: auth });
    await new Client({ name: 'test-assistant', version: '1.0.0' }).connect(transport).catch(() => undefined);
    expect(auth.authorizationUrl).toBeDefined();
    await member.bringToFront();
    await member.goto(auth.authorizationUrl!.href);
    await member.waitForSelector('.request-code');
    const code = await text(member, '.request-code');
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(await member.$eval('a.console-link', (a) => (a as HTMLAnchorElement).href)).toBe(`${consoleBase}/#/assistants/${code}`);

    await Promise.all([member.waitForNavigation(), member.click('button.continue')]);
    expect(await text(member, '.error')).toMatch(/has not been approved/);
    // The refused page still shows the same request: the member goes on from it.
    expect(await text(member, '.request-code')).toBe(code);
  });

  it('lets a console operator look the request up (who asks, where it returns), refuse a non-member, and approve it for a member', async () => {
    const code = await text(member, '.request-code');
    await operator.bringToFront();
    const { token } = await issueConsoleLink(service.t.runtime.commands, { operator: 'olga' }, testPrincipal);
    await operator.goto(`${consoleBase}/login?token=${token}`);
    await Promise.all([operator.waitForNavigation(), operator.click('form[action="/login"] button')]);

    // A code that no sign-in shows is named as such.
    await operator.goto(`${consoleBase}/#/assistants/ZZZZ-ZZZZ`);
    await operator.waitForSelector('.problem');
    expect(await text(operator, '.problem')).toContain('SIGN_IN_REQUEST_NOT_FOUND');

    // The sign-in page's own link.
    await operator.goto(`${consoleBase}/#/assistants/${code}`);
    await operator.waitForSelector('.pending-sign-in .client-name');
    expect(await text(operator, '.pending-sign-in .client-name')).toBe('Test Assistant');
    expect(await text(operator, '.pending-sign-in .returns-to')).toBe(`http://${new URL(REDIRECT_URL).host}`);
    expect(await text(operator, '.pending-sign-in .may')).toMatch(/^build, publish, test and run flows$/);
    expect(await text(operator, '.pending-sign-in .warning')).toMatch(/member's own computer/);

    // A console link names an operator, not a member: the member is named, and must be one.
    await typeInto(operator, '.pending-sign-in input[name="subject"]', 'mallory');
    await operator.click('.pending-sign-in button[type="submit"]');
    await operator.waitForSelector('.pending-sign-in .problem');
    expect(await text(operator, '.pending-sign-in .problem')).toContain('USER_NOT_MEMBER');
    await typeInto(operator, '.pending-sign-in input[name="subject"]', 'alice');
    await operator.click('.pending-sign-in button[type="submit"]');
    await operator.waitForSelector('.approved');
    expect(await text(operator, '.approved')).toContain(`Approved for alice: press Continue on the sign-in page of request ${code}`);
  });

  it('finishes the sign-in when the member continues: the assistant gets its token and its tools, and the log says who approved', async () => {
    await member.bringToFront();
    await member.click('button.continue');
    await member.waitForFunction(() => document.body.innerText.includes('You may close this window.'));
    const authorizationCode = new URL(returnedTo!).searchParams.get('code');
    if (!authorizationCode) throw new Error(`returned to ${returnedTo}`);
    expect(authorizationCode).toEqual(expect.any(String));
    await transport.finishAuth(authorizationCode!);
    expect(decodeJwt(auth.stored!.access_token)).toMatchObject({ sub: 'alice', aud: service.mcpUrl, scope: 'mcp' });
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(service.mcpUrl), { authProvider: auth }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('create_flow');
    await client.close();

    const events = await service.t.runtime.eventStore.readAll(0, 100_000);
    const approved = events.find((e) => e.type === 'SignInRequestApproved');
    expect(approved?.metadata.principal).toMatchObject({ kind: 'user', id: 'link:olga', via: 'console' });
    expect(approved?.data).toMatchObject({ subject: 'alice', clientId: auth.client!.client_id, readOnly: false });
    expect(events.filter((e) => e.type === 'SignInRequestCompleted')).toHaveLength(1);
    expect(events.find((e) => e.type === 'OAuthClientSignedIn')?.data).toMatchObject({ clientId: auth.client!.client_id, subject: 'alice' });
  });

  it('lists the signed-in assistant in the console and ends it there: its token is refused at once', async () => {
    await operator.bringToFront();
    await operator.goto(`${consoleBase}/#/assistants`);
    const row = `tr[data-client-id="${auth.client!.client_id}"]`;
    await operator.waitForSelector(row);
    expect(await text(operator, row)).toContain('Test Assistant');
    expect(await text(operator, `${row} .acts-for`)).toBe('alice');
    // An organization's assistants: those its members signed in with.
    await operator.select('select[name="organization"]', 'globex');
    await operator.waitForSelector('.empty');
    await operator.select('select[name="organization"]', 'acme');
    await operator.waitForSelector(row);
    await operator.click(`${row} button.end-sign-in`);
    await operator.waitForFunction((selector) => !document.querySelector(selector), {}, row);

    const refused = await fetch(service.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth.stored!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    const events = await service.t.runtime.eventStore.readAll(0, 100_000);
    expect(events.find((e) => e.type === 'OAuthClientRevoked')?.metadata.principal).toMatchObject({ id: 'link:olga', via: 'console' });
  });
});
