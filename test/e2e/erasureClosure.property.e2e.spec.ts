import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { exportRun } from '../../src/audit/runExport.ts';
import { backtestPair } from '../../src/backtests/backtestPairs.ts';
import { startBacktest } from '../../src/backtests/backtestRunner.ts';
import { testCaseFromRun } from '../../src/backtests/testCaseFromRun.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { allProjections } from '../../src/projections/allProjections.ts';
import { verifyReadModels } from '../../src/projections/readModelVerification.ts';
import { backtestPage } from '../../src/queries/backtestQueries.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { encodedForms, holdsMarker, streamsHoldingAny, tablesHoldingAny } from '../support/plaintextScan.ts';
import { type RecordedRequest, type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/** What a planted run is: which flow, how it is called, and how its model (if any) answers. */
const kinds = ['throw-sync', 'throw-job', 'reply', 'refusal', 'tools', 'webhook'] as const;
type Kind = (typeof kinds)[number];
const flowOf: Record<Kind, string> = { 'throw-sync': 'thrower', 'throw-job': 'thrower', reply: 'chat', refusal: 'chat', tools: 'agent', webhook: 'echo' };
const lookup = { type: 'function', function: { name: 'lookup', description: 'Find a customer', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };

const flows: Record<string, unknown[]> = {
  thrower: [{ block: { name: 'check', processor_type: 'code', code: 'throw new Error("invalid customer " + input.message);' } }],
  echo: [{ block: { name: 'answer', processor_type: 'code', code: 'return { answer: input.message, note: input.parameters.note };' } }],
  chat: [{ block: { name: 'reply', processor_type: 'llm', prompt: 'Answer: {{message}}' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: 'Help with: {{message}}', processor_config: { tools_enabled: true } } }],
};

/** Text a run is made with (what cannot be stored is refused before any run exists: hostileText.property.e2e): emoji, joiners, RTL, combining marks, quotes. */
const storableText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.array(fc.constantFrom('😀', '👩‍👩‍👧', '\u202e', 'e\u0301', 'ש', 'x', '\ufffd', '\\', '"', ' '), { maxLength: 80 }).map((parts) => parts.join('')),
);

const MARKER = /m[0-9a-f]{32}/;
const markerIn = (text: string) => MARKER.exec(text)?.[0] ?? 'none';
const promptOf = (request: RecordedRequest) => String(request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

interface Planted {
  kind: Kind;
  text: string;
  erase: boolean;
  rerun: boolean;
  testCase: boolean;
  backtest: boolean;
  marker: string;
  executionId: string;
  /** Runs made from it: its rerun, backtest replay, the test run of a case made from it. */
  derived: string[];
}

/**
 * Issue 60, done when: a property test erases a random subset of random runs of every kind (code
 * blocks that throw their input, llm replies, refusals and tool calls through the scripted server,
 * webhooks erased mid-retry, backtests with a judge, reruns, test cases made from runs) and finds no
 * planted marker of an erased run in any table (as text, hex and base64), any log line, any audit
 * export, any webhook body sent after the erasure or any read the API serves; and every verification
 * still passes. A test case made from a run keeps its own copy: the one documented exception.
 */
describe('erasure as a closure, by property: nothing of an erased run is left anywhere', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let model: ScriptedModelServer;
  let receiver: HttpsReceiver;
  let workers: { stop(): Promise<void> };
  /** Which marker's runs the receiver erases on their first delivery attempt (then answers 503 quoting it). */
  const eraseOnDelivery = new Set<string>();
  /** The model's answers change between production and a backtest: replays come out `different` and are judged. */
  let round = 1;

  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${base}/${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // The step route answers an event stream (it ends with an ended run): kept as its text.
    const text = await answer.text();
    const read: unknown = answer.headers.get('content-type')?.includes('json') ? JSON.parse(text) : { text };
    return { status: answer.status, body: read as Record<string, unknown> & { detail?: { code: string; message: string; executionId?: string } } };
  };
  const seq = (flow: string, path: string) => `seq/acme/web/${flow}/${path}`;
  const erase = async (flow: string, executionId: string) => {
    const erased = await call('DELETE', seq(flow, `runs/${executionId}/data?reason=data%20subject%20request`));
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    return erased.body;
  };

  const respond = (request: RecordedRequest) => {
    const prompt = promptOf(request);
    const marker = markerIn(JSON.stringify(request.body.messages));
    if (prompt.startsWith('You grade the output')) return { content: { score: 0.4, rationale: `the answer about ${marker} changed` } };
    if (prompt.includes('refusal:')) return { refusal: `I will not discuss ${marker}` };
    const tools = request.body.messages.filter((m) => m.role === 'tool');
    if (request.body.tools && tools.length === 0) return { toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name: 'lookup', arguments: JSON.stringify({ q: marker }) }] };
    return { content: `round ${round}: about ${marker}${tools.length > 0 ? ` found ${String(tools[0]!.content)}` : ''}` };
  };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.respond = respond;
    receiver = await startHttpsReceiver((req, res) => {
      const body = JSON.parse(req.body) as { executionId: string; result?: { answer?: string } };
      const marker = markerIn(req.body);
      const attempt = receiver.received.filter((r) => r.headers['x-service-delivery'] === req.headers['x-service-delivery']).length;
      if (attempt > 1) return res.writeHead(204).end();
      // The first attempt fails, quoting the run; a run planned for erasure is erased before the answer, so before any retry.
      if (!eraseOnDelivery.has(marker)) return res.writeHead(503).end(`busy with ${body.result?.answer ?? ''}`);
      void erase('echo', body.executionId).then(() => res.writeHead(503).end(`busy with ${body.result?.answer ?? ''}`), () => res.writeHead(500).end());
    });
    t = await createTestRuntime(
      'erasure-closure',
      {
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'k',
        SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
        SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
        SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
        SEQFLOW_DEFAULT_CREDITS: '100000000',
        SEQFLOW_LLM_MAX_RETRIES: '0',
      },
      { logLevel: 'trace' },
    );
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await receiver?.close();
    await model?.close();
  });

  /** Runs one planted run as its kind says, to its end: its id. */
  async function plant(kind: Kind, message: string, marker: string): Promise<string> {
    const flow = flowOf[kind];
    const parameters = { note: `${marker} note` };
    if (kind === 'throw-sync' || kind === 'reply' || kind === 'refusal') {
      const answer = await call('POST', seq(flow, 'execute'), { message: kind === 'refusal' ? `refusal: ${message}` : message, parameters });
      return String(answer.body.executionId ?? answer.body.detail?.executionId);
    }
    if (kind === 'tools') {
      const pause = (await call('POST', seq(flow, 'execute'), { message, parameters, tools: [lookup] })).body as { executionId: string; pausedAtStep: string; iterationsUsed: number; toolCalls: { id: string }[]; toolCallMessages: unknown[] };
      const results = pause.toolCalls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: `record of ${marker}` }));
      const done = await call('POST', seq(flow, 'execute'), { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, ...results], tools: [lookup] });
      expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
      return pause.executionId;
    }
    const job = await call('POST', seq(flow, 'jobs'), { message, parameters, ...(kind === 'webhook' ? { callbackUrl: `${receiver.url}/hook` } : {}) });
    expect(job.status).toBe(202);
    const executionId = String(job.body.executionId);
    await until(async () => ['completed', 'failed'].includes(String((await call('GET', seq(flow, `jobs/${executionId}`))).body.status)), `job ${executionId} to end`);
    return executionId;
  }

  /** Everything an operator or caller can read about `planted`'s runs: every read API's answer, as text. */
  async function readsOf(run: Planted, backtests: string[]): Promise<string> {
    const flow = flowOf[run.kind];
    const answers: unknown[] = [];
    for (const id of [run.executionId, ...run.derived]) {
      answers.push(await runTrace(t.runtime.eventStore, {}, id));
      answers.push((await call('GET', seq(flow, `jobs/${id}`))).body);
      answers.push((await call('GET', seq(flow, `step/${id}`))).body);
    }
    answers.push((await call('GET', seq(flow, 'runs?limit=100'))).body, (await call('GET', seq(flow, 'jobs?limit=100'))).body);
    const orgId = (await t.runtime.db.selectFrom('organizations').select('id').executeTakeFirstOrThrow()).id;
    answers.push((await call('GET', `organizations/${orgId}/webhooks/deliveries?limit=200`)).body);
    for (const backtestId of backtests) {
      const page = await backtestPage(t.runtime.db, {}, { backtestId, limit: 100 });
      answers.push(page);
      if (page.pairs.some((p) => p.executionId === run.executionId)) answers.push(await backtestPair(t.runtime, {}, { backtestId, executionId: run.executionId }));
    }
    return JSON.stringify(answers);
  }

  it('property: erase any subset of runs of every kind with what was derived from them; no marker of an erased run is left, and every verification passes', async () => {
    const plan = fc.record({ kind: fc.constantFrom(...kinds), text: storableText, erase: fc.boolean(), rerun: fc.boolean(), testCase: fc.boolean(), backtest: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(plan, { minLength: 1, maxLength: 5 }), async (plans) => {
        round = 1;
        const runs: Planted[] = [];
        for (const p of plans) {
          const marker = `m${randomUUID().replaceAll('-', '')}`;
          // A webhook run is erased by its receiver, mid-retry; nothing is derived from it first.
          const planned = p.kind === 'webhook' ? { ...p, rerun: false, testCase: false, backtest: false } : p;
          if (planned.kind === 'webhook' && planned.erase) eraseOnDelivery.add(marker);
          const executionId = await plant(p.kind, `${marker} ${p.text}`, marker);
          runs.push({ ...planned, marker, executionId, derived: [] });
        }
        await t.runtime.projections.catchUp();

        // What is derived from the runs: reruns (a tool run's would stop at its pause), test cases and their runs, backtests with a judge.
        round = 2;
        for (const run of runs.filter((r) => r.rerun && r.kind !== 'tools')) run.derived.push((await t.runtime.runs.rerun(run.executionId, testPrincipal)).executionId);
        const backtests: string[] = [];
        for (const flow of ['chat', 'agent']) {
          const chosen = runs.filter((r) => r.backtest && flowOf[r.kind] === flow);
          if (chosen.length === 0) continue;
          const flowId = (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', flow).executeTakeFirstOrThrow()).id;
          const report = await (await startBacktest(t.runtime.execution, {}, { flowId, draft: true, selection: { kind: 'executions', executionIds: chosen.map((r) => r.executionId) }, judge: { rubric: 'The answer must not change.' } }, testPrincipal)).run();
          backtests.push(report.backtestId);
          for (const pair of report.runs) runs.find((r) => r.executionId === pair.executionId)!.derived.push(pair.backtestExecutionId);
        }
        const cases = new Map<string, string>();
        for (const run of runs.filter((r) => r.testCase && ['reply', 'tools'].includes(r.kind))) {
          const testCase = await testCaseFromRun(t.runtime.commands, {}, { executionId: run.executionId, name: `from ${run.executionId}` }, testPrincipal);
          await t.runtime.projections.catchUp();
          run.derived.push((await runTestCase(t.runtime.execution, {}, { testCaseId: testCase.testCaseId, draft: true }, testPrincipal)).executionId);
          cases.set(run.marker, testCase.testCaseId);
        }
        await t.runtime.projections.catchUp();

        // The erasures: one command per run, taking what was derived from it along.
        for (const run of runs.filter((r) => r.erase && r.kind !== 'webhook')) {
          const erased = await erase(flowOf[run.kind], run.executionId);
          expect((erased.derived as { executionId: string }[]).map((d) => d.executionId).sort()).toEqual([...run.derived].sort());
          expect(erased.testCasesKept).toEqual(cases.has(run.marker) ? [expect.objectContaining({ testCaseId: cases.get(run.marker) })] : []);
        }
        // Every delivery ends: a webhook run erased mid-retry as data_erased, POSTing nothing more; the others delivered on their retry.
        const orgId = (await t.runtime.db.selectFrom('organizations').select('id').executeTakeFirstOrThrow()).id;
        for (const run of runs.filter((r) => r.kind === 'webhook')) {
          await until(async () => {
            const items = (await call('GET', `organizations/${orgId}/webhooks/deliveries?limit=200`)).body.items as { executionId: string; status: string }[];
            return items.find((d) => d.executionId === run.executionId)?.status === (run.erase ? 'data_erased' : 'succeeded');
          }, `the delivery of ${run.executionId} to end`);
        }
        await t.runtime.projections.catchUp();

        const logs = t.logs();
        for (const run of runs) {
          // No marker in any log line, erased or not: a log cannot be erased.
          expect(holdsMarker(logs, run.marker), `the logs quote run ${run.kind}`).toBe(false);
          // The search sees what is there: a run that was not erased still reads with its input.
          if (!run.erase) {
            expect(holdsMarker(await readsOf(run, backtests), run.marker), `what the API reads of kept run ${run.kind}`).toBe(true);
            continue;
          }
          const kept = cases.has(run.marker) ? ['seqflow_events', 'test_cases'] : [];
          expect(await tablesHoldingAny(t.runtime.db, encodedForms(run.marker)), `tables holding run ${run.kind}`).toEqual(kept);
          // The test case's own copy is in its stream only, never in a run's.
          if (cases.has(run.marker)) expect(await streamsHoldingAny(t.runtime.db, encodedForms(run.marker))).toEqual([`testcase-${cases.get(run.marker)}`]);
          for (const id of [run.executionId, ...run.derived]) {
            const exported = `${(await exportRun(t.runtime, id)).join('\n')}\n`;
            expect(holdsMarker(exported, run.marker), `the export of ${id}`).toBe(false);
            const verified = verifyExport(exported);
            expect(verified.ok, `the export of ${id} (${run.kind}, ${run.derived.indexOf(id)}): ${JSON.stringify(verified)}`).toBe(true);
            expect((await t.runtime.eventStore.readStream(executionStream(id)))[0]).toMatchObject({ data: { message: null, parameters: {} } });
          }
          expect(holdsMarker(await readsOf(run, backtests), run.marker), `what the API reads of run ${run.kind}`).toBe(false);
          // A webhook run's one POST is the attempt its receiver erased it in: nothing was sent after.
          expect(receiver.received.filter((r) => holdsMarker(r.body, run.marker)), 'webhook bodies quoting an erased run').toHaveLength(run.kind === 'webhook' ? 1 : 0);
        }
        expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
        const verified = await verifyReadModels({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, databaseUrl: t.runtime.databaseUrl });
        expect({ ok: verified.ok, unreadable: verified.unreadable.count }).toEqual({ ok: true, unreadable: 0 });
      }),
      // Besides the random plans, one that has every kind with everything derived from it, erased and kept.
      { numRuns: 5, examples: [[kinds.flatMap((kind) => [true, false].map((erase) => ({ kind, text: 'carol@example.com 😀', erase, rerun: true, testCase: true, backtest: true })))]] },
    );
  });
});
