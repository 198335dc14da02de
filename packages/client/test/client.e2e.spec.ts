import { getEventListeners } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { startWorkers } from '../../../src/runtime/workerRole.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../test/support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../../../test/support/testRuntime.ts';
import { type ErrorCode, type StepEvent, SeqflowClient, SeqflowError, isSeqflowError } from '../src/index.ts';

const flows = {
  three: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.toUpperCase() };' } },
    { block: { name: 'echo', processor_type: 'passthrough' } },
    { block: { name: 'done', processor_type: 'passthrough' } },
  ],
  asker: [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
  gated: [{ block: { name: 'first', processor_type: 'passthrough' } }, { block: { name: 'maybe', processor_type: 'passthrough', run_if: 'input.parameters.go = true' } }],
};
const lookup = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };

/** A fetch whose first /step answer breaks off after `events` events, as a dropped connection would. */
function droppingFetch(events: number): typeof fetch {
  let dropped = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (dropped || init?.method !== 'POST' || !String(input).endsWith('/step') || !response.body) return response;
    dropped = true;
    const reader = response.body.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (text.split('\n\n').length <= events) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const kept = text.split('\n\n').slice(0, events).join('\n\n') + '\n\n';
    // The kept events are read first; the next read fails as a reset connection does.
    const body = new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode(kept)), pull: (controller) => controller.error(new TypeError('terminated')) });
    return new Response(body, { status: 200, headers: response.headers });
  };
}

describe('@seqflow/client against the real service', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let client: SeqflowClient;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('client', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000', SEQFLOW_LLM_MAX_RETRIES: '0' });
    apiKey = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ app, base: baseUrl } = await serveApi(t.runtime));
    baseUrl = baseUrl.replace(/\/api\/v1$/, '');
    client = new SeqflowClient({ baseUrl, apiKey, org: 'acme', project: 'web' });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('executes a flow and answers its typed result', async () => {
    const answer = await client.execute('three', { message: 'hi' });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'HI' }, blockCount: 3 });
    expect((await client.getFlow('three')).productionVersion?.number).toBe(1);
  });

  it('throws SeqflowError with the code, status and request id of an error answer, and of a failed run', async () => {
    const missing = await client.execute('nope', { message: 'x' }, { requestId: 'client-test-1' }).catch((error: unknown) => error);
    expect(isSeqflowError(missing, 'FLOW_NOT_FOUND')).toBe(true);
    expect(missing).toMatchObject({ status: 404, code: 'FLOW_NOT_FOUND', requestId: 'client-test-1' });

    model.script({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const failed = (await client.execute('asker', { message: 'x' }).catch((error: unknown) => error)) as SeqflowError;
    expect(failed).toBeInstanceOf(SeqflowError);
    expect(failed.code).toBe('PROVIDER_ERROR');
    expect(failed.detail.executionId).toEqual(expect.any(String));

    const wrongKey = new SeqflowClient({ baseUrl, apiKey: 'sf_live_nope', org: 'acme', project: 'web' });
    expect(await wrongKey.getFlow('three').catch((error: unknown) => (error as SeqflowError).code)).toBe('UNAUTHENTICATED');
    expectTypeOf<'FLOW_NOT_FOUND'>().toExtend<ErrorCode>();
    expectTypeOf<'NOT_A_CODE'>().not.toExtend<ErrorCode>();
  });

  it('starts a job once per idempotency key, waits for it through a worker, and cancels another', async () => {
    const first = await client.startJob('three', { message: 'later' }, { idempotencyKey: 'client-job-1' });
    const retry = await client.startJob('three', { message: 'later' }, { idempotencyKey: 'client-job-1' });
    expect(retry.executionId).toBe(first.executionId);
    // No worker runs yet: the wait ends with its signal.
    await expect(client.waitForJob('three', first.executionId, { pollIntervalMs: 50, signal: AbortSignal.timeout(300) })).rejects.toMatchObject({ name: 'TimeoutError' });

    const workers = await startWorkers(t.runtime);
    try {
      // A long-lived signal: the polls between must leave no listener behind on it.
      const longLived = new AbortController();
      const done = await client.waitForJob('three', first.executionId, { pollIntervalMs: 50, signal: longLived.signal });
      expect(done).toMatchObject({ status: 'completed', result: { text: 'LATER' } });
      expect(getEventListeners(longLived.signal, 'abort')).toHaveLength(0);
    } finally {
      await workers.stop();
    }
    const other = await client.startJob('three', { message: 'never mind' });
    expect(await client.cancelJob('three', other.executionId, 'changed my mind')).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
    await t.runtime.projections.catchUp();
    const page = await client.listJobs('three', { limit: 10 });
    expect(page.items.map((job) => job.executionId)).toEqual(expect.arrayContaining([first.executionId, other.executionId]));
  });

  it('sends back the log position its last write was answered with, so that its listings show its own writes (read replicas)', async () => {
    const sent: Array<{ method: string; position: string | null }> = [];
    const answered: Array<string | null> = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push({ method: init?.method ?? 'GET', position: new Headers(init?.headers).get('seqflow-position') });
      const response = await fetch(input, init);
      answered.push(response.headers.get('seqflow-position'));
      return response;
    };
    const own = new SeqflowClient({ baseUrl, apiKey, org: 'acme', project: 'web', fetch: recording });
    const job = await own.startJob('three', { message: 'mine' });
    const position = answered.at(-1);
    expect(Number(position)).toBeGreaterThan(0);
    // This test's runtime runs no projections of its own: they catch up here (test/e2e/readReplicas.e2e has the server waiting for them).
    await t.runtime.projections.catchUp();
    const page = await own.listJobs('three', { limit: 100 });
    expect(page.items.map((listed) => listed.executionId)).toContain(job.executionId);
    expect(sent).toEqual([
      { method: 'POST', position: null },
      { method: 'GET', position },
    ]);
  });

  it("streams a run's steps, and resumes a dropped stream from the last event without losing or repeating one", async () => {
    const whole: StepEvent[] = [];
    for await (const event of client.step('three', { message: 'hi' })) whole.push(event);
    expect(whole.map((e) => e.event)).toEqual(['started', 'step_started', 'step_completed', 'step_started', 'step_completed', 'step_started', 'step_completed', 'completed']);

    const flaky = new SeqflowClient({ baseUrl, apiKey, org: 'acme', project: 'web', fetch: droppingFetch(3) });
    const resumed: StepEvent[] = [];
    for await (const event of flaky.step('three', { message: 'hi' })) resumed.push(event);
    expect(resumed.map((e) => e.event)).toEqual(whole.map((e) => e.event));
    expect(new Set(resumed.map((e) => e.id)).size).toBe(resumed.length);
    const last = resumed.at(-1)!;
    expect(last.event === 'completed' && last.data.result).toEqual({ text: 'HI' });
  });

  it("gives an llm block's reply as `token` events while it is written, typed, before the step completes", async () => {
    model.script({ content: 'written as it comes', chunks: ['written ', 'as it ', 'comes'] });
    const events: StepEvent[] = [];
    for await (const event of client.step('asker', { message: 'hi' })) events.push(event);
    expect(events.map((e) => e.event)).toEqual(['started', 'step_started', 'token', 'token', 'token', 'step_completed', 'completed']);
    const pieces = events.flatMap((e) => (e.event === 'token' ? [e.data.delta] : []));
    const completed = events.find((e) => e.event === 'step_completed');
    expect(pieces.join('')).toBe(completed?.event === 'step_completed' ? completed.data.output : undefined);
  });

  it('sends step_skipped only when asked for the extended stream, typed with its condition and values', async () => {
    const plain: StepEvent[] = [];
    for await (const event of client.step('gated', { message: 'hi' })) plain.push(event);
    expect(plain.map((e) => e.event)).toEqual(['started', 'step_started', 'step_completed', 'completed']);
    const extended: StepEvent[] = [];
    for await (const event of client.step('gated', { message: 'hi' }, { extended: true })) extended.push(event);
    expect(extended.map((e) => e.event)).toEqual(['started', 'step_started', 'step_completed', 'step_skipped', 'completed']);
    const skipped = extended.find((e) => e.event === 'step_skipped');
    expect(skipped?.event === 'step_skipped' && skipped.data).toMatchObject({ blockName: 'maybe', condition: 'input.parameters.go = true', values: { 'input.parameters.go': null } });
  });

  it('answers tool calls with your functions until the run completes', async () => {
    model.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"ada"}' }] }, { content: 'Ada Lovelace, 1815' });
    const asked: unknown[] = [];
    const answer = await client.runWithTools('agent', { message: 'who?', tools: [lookup] }, { lookup: (args) => (asked.push(args), { born: 1815 }) });
    expect(asked).toEqual([{ q: 'ada' }]);
    expect(answer.status).toBe('completed');
    const resumedWith = model.requests.at(-1)!.body.messages.at(-1);
    expect(resumedWith).toMatchObject({ role: 'tool', content: '{"born":1815}' });
  });
});
