import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createTRPCClient, httpLink } from '@trpc/client';
import pino from 'pino';
import { buildConsoleServer } from '../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../src/api/console/consoleRouter.ts';
import { issueConsoleLink } from '../src/commands/consoleLinkCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { encodeEvent } from '../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../src/domain/execution/executionEvents.ts';
import { openRuntime, type Runtime } from '../src/runtime/runtime.ts';
import { launchChromium } from '../test/support/chromium.ts';
import { percentile } from './percentile.ts';

const RUNS = 100_000;
const WRITERS = 16;
const CALLS = 200;
const PAINTS = 5;
const principal = { principal: { kind: 'system' as const, id: 'bench' } };

/**
 * The operator console with 100k runs in its read model: `runs.list` latency over real HTTP with the
 * tRPC client (p50/p99 over 200 calls for each filter shape, the view's default `kind: production` among them), and the Runs view's first paint in
 * Chromium. The runs are written as events (a request and an ending per run, 16 writers) and
 * projected, so the `runs` table is the one the projection builds.
 */
export async function benchConsole(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' });
  const runtime = await openRuntime(config, pino({ level: 'silent' }));
  const app = await buildConsoleServer(runtime);
  try {
    const seeded = await seedRuns(runtime);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const { token } = await issueConsoleLink(runtime.commands, { operator: 'bench' }, principal);
    // As a script signs in: the link's token posted to /login (opening the link only shows its Sign in button).
    const login = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const setCookie = login.headers.get('set-cookie');
    if (!setCookie) throw new Error(`the console sign-in answered ${login.status} without a session cookie: ${await login.text()}`);
    const cookie = setCookie.split(';')[0]!;
    const client = createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: `${base}/internal/trpc`, headers: { cookie } })] });

    const deepCursor = await pageCursor(client, 20);
    const shapes = {
      firstPage: () => client.runs.list.query({}),
      // What the Runs view asks first: production runs only.
      production: () => client.runs.list.query({ kind: 'production' }),
      byOrganization: () => client.runs.list.query({ organizationId: seeded.organizationId }),
      failedOnly: () => client.runs.list.query({ status: ['failed'] }),
      byApiKey: () => client.runs.list.query({ apiKeyId: seeded.apiKeyId }),
      page21: () => client.runs.list.query({ cursor: deepCursor }),
    };
    const runsList: Record<string, { p50Ms: number; p99Ms: number }> = {};
    for (const [name, call] of Object.entries(shapes)) runsList[name] = await latency(call);
    return { runsInReadModel: seeded.runs, seedSeconds: seeded.seconds, runsList, runsViewFirstPaint: await firstPaint(base, runtime) };
  } finally {
    await app.close();
    await runtime.close();
  }
}

async function seedRuns(runtime: Runtime) {
  const org = await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  const flow = await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'answer', name: 'Answer', steps: [{ block: { name: 'echo', processor_type: 'passthrough' } }] }, production: true }, principal);
  await runtime.projections.catchUp();
  const row = await runtime.db.selectFrom('flows').select(['project_id', 'production_version_id']).where('id', '=', flow.flowId).executeTakeFirstOrThrow();
  const apiKeyId = randomUUID();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = next++; i < RUNS; i = next++) {
        const executionId = randomUUID();
        const requested: ExecutionEvent = {
          type: 'ExecutionRequested',
          data: {
            executionId, flowId: flow.flowId, versionId: row.production_version_id!, versionNumber: 1, organizationId: org.id, projectId: row.project_id, mode: i % 3 === 0 ? 'async' : 'sync',
            message: `run ${i}`, parameters: {}, attachments: [], apiKeyId: i % 10 === 0 ? apiKeyId : randomUUID(), blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null,
          },
        };
        const ending: ExecutionEvent =
          i % 50 === 0
            ? { type: 'ExecutionFailed', data: { executionId, reason: 'error', code: 'CODE_BLOCK_FAILED', message: 'bench', detail: null, stepIndex: 0, blockName: 'echo', durationMs: 12 } }
            : { type: 'ExecutionCompleted', data: { executionId, result: { text: `run ${i}` }, durationMs: 9 } };
        const metadata = { correlationId: executionId, causationId: null, principal: principal.principal, occurredAt: new Date().toISOString() };
        await runtime.eventStore.append(`execution-${executionId}`, [requested, ending].map((event) => ({ id: randomUUID(), ...encodeEvent(event), metadata })), 'no_stream');
      }
    }),
  );
  await runtime.projections.catchUp();
  const runs = Number((await runtime.db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  if (runs < RUNS) throw new Error(`the runs read model holds ${runs} runs, not ${RUNS}`);
  return { organizationId: org.id, apiKeyId, runs, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

async function pageCursor(client: ReturnType<typeof createTRPCClient<ConsoleRouter>>, pages: number): Promise<string> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) cursor = (await client.runs.list.query(cursor ? { cursor } : {})).nextCursor ?? undefined;
  if (!cursor) throw new Error('fewer pages of runs than expected');
  return cursor;
}

async function latency(call: () => Promise<{ items: unknown[] }>) {
  for (let i = 0; i < 10; i++) await call(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const page = await call();
    samples.push(performance.now() - started);
    if (page.items.length === 0) throw new Error('runs.list answered an empty page');
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: Number(percentile(samples, 50).toFixed(1)), p99Ms: Number(percentile(samples, 99).toFixed(1)) };
}

/**
 * A fresh browser page signs in with a one-time link (not timed), then opens `/#/runs`: the first
 * contentful paint (the browser's own figure) and the time until the first page of runs is in the
 * table, medians of 5 fresh loads.
 */
async function firstPaint(base: string, runtime: Runtime) {
  if (!existsSync('dist/console/index.html')) return 'skipped: the console page is not built (npm run build)';
  const browser = await launchChromium().catch((error: unknown) => error as Error);
  if (browser instanceof Error) return `skipped: ${browser.message}`;
  try {
    const contentful: number[] = [];
    const rowsShown: number[] = [];
    for (let i = 0; i < PAINTS; i++) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      const { token } = await issueConsoleLink(runtime.commands, { operator: 'bench' }, principal);
      await page.goto(`${base}/login?token=${token}`);
      // The link's page asks first; its button signs in.
      await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
      await page.waitForSelector('table.runs tbody tr');
      const started = performance.now();
      await page.goto(`${base}/#/runs`, { waitUntil: 'domcontentloaded' });
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.waitForSelector('table.runs tbody tr:nth-child(50)');
      rowsShown.push(performance.now() - started);
      contentful.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1));
      await context.close();
    }
    const median = (values: number[]) => Number([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(0));
    return { firstContentfulPaintMs: median(contentful), first50RunsShownMs: median(rowsShown), loads: PAINTS };
  } finally {
    await browser.close();
  }
}
