import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SseFrame, openSse } from '../support/sseClient.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const flows: Record<string, unknown[]> = {
  three: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.toUpperCase() };' } },
    { block: { name: 'relay', processor_type: 'passthrough' } },
    { block: { name: 'answer', processor_type: 'llm', prompt: 'Answer {{previous_output.text}}' } },
  ],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
};
const tools = [{ type: 'function', function: { name: 'lookup', description: 'Look something up', parameters: { type: 'object', properties: {} } } }];

describe('/step: step-through execution over server-sent events', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const step = (flow: string, body: unknown) => openSse(`${base}/seq/acme/web/${flow}/step`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
  const reconnect = (flow: string, executionId: string, lastEventId?: string) =>
    openSse(`${base}/seq/acme/web/${flow}/step/${executionId}`, { headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
  // The spec's events, as a caller that ignores `token` events reads them (those are tested in stepTokens.e2e).
  const eventsOnly = (frames: SseFrame[]) => frames.filter((f) => f.event && f.event !== 'token');
  const streamTypes = async (executionId: string) => (await t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e) => e.type);

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('step', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000', SEQFLOW_SSE_KEEPALIVE_MS: '100' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  it('streams started, each step started and completed with its output, and completed, with ids that are stream revisions', async () => {
    server.respond = () => ({ content: 'forty-two' });
    const sse = await step('three', { message: 'question' });
    expect(sse.status).toBe(200);
    expect(sse.contentType).toMatch(/^text\/event-stream/);
    const frames = eventsOnly(await sse.rest());
    expect(frames.map((f) => [f.event, (f.data as { blockName?: string }).blockName ?? null])).toEqual([
      ['started', null],
      ['step_started', 'prep'],
      ['step_completed', 'prep'],
      ['step_started', 'relay'],
      ['step_completed', 'relay'],
      ['step_started', 'answer'],
      ['step_completed', 'answer'],
      ['completed', null],
    ]);
    const executionId = (frames[0]!.data as { executionId: string }).executionId;
    const stream = await t.runtime.eventStore.readStream(`execution-${executionId}`);
    const revisionOf = (type: string, blockName?: string) => stream.find((e) => e.type === type && (blockName === undefined || (e.data as { blockName: string }).blockName === blockName))!.revision;
    expect(frames[2]!.id).toBe(String(revisionOf('ExecutionStepCompleted', 'prep')));
    expect(frames[2]!.data).toMatchObject({ output: { text: 'QUESTION' } });
    expect(frames.at(-1)).toMatchObject({ id: String(revisionOf('ExecutionCompleted')), data: { status: 'completed', executionId, result: { text: 'forty-two' }, blockCount: 3 } });
  });

  it('emits step_paused_for_tool_calls with the same data as the /execute pause, and resumes over /step', async () => {
    server.script({ toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] }, { content: 'found it' });
    const frames = eventsOnly(await (await step('agent', { message: 'find', tools })).rest());
    expect(frames.map((f) => f.event)).toEqual(['started', 'step_started', 'step_paused_for_tool_calls']);
    const pause = frames.at(-1)!.data as { executionId: string; toolCallMessages: unknown[]; pausedAtStep: string; iterationsUsed: number };
    expect(pause).toEqual({
      status: 'tool_calls_required',
      executionId: expect.any(String),
      pausedAtStep: 'agent',
      iterationsUsed: 1,
      toolCallMessages: [{ role: 'user', content: 'find' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] }],
      toolCalls: [{ id: 'c1', function: { name: 'lookup', arguments: '{}' } }],
      accumulatedOutputs: {},
    });

    const resumed = eventsOnly(
      await (await step('agent', { executionId: pause.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'c1', content: 'the answer' }], tools })).rest(),
    );
    expect(resumed.map((f) => f.event)).toEqual(['resumed', 'step_completed', 'completed']);
    expect(resumed.at(-1)!.data).toMatchObject({ result: { text: 'found it' } });
  });

  it('resumes a dropped stream from Last-Event-ID without repeating or missing events, and the run finishes meanwhile', async () => {
    server.respond = () => ({ content: 'slow answer', delayMs: 400 });
    const first = await step('three', { message: 'q' });
    const received: SseFrame[] = [];
    for (let frame = await first.next(); frame; frame = await first.next()) {
      if (frame.event) received.push(frame);
      if (frame.event === 'step_completed') break; // the client drops after the first completed step
    }
    first.close();
    const executionId = (received[0]!.data as { executionId: string }).executionId;

    const rest = eventsOnly(await (await reconnect('three', executionId, received.at(-1)!.id)).rest());
    expect([...received, ...rest].map((f) => f.event)).toEqual(['started', 'step_started', 'step_completed', 'step_started', 'step_completed', 'step_started', 'step_completed', 'completed']);
    const all = [...received, ...rest];
    const ids = all.map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    // A half id is a start told by its completion's event (the block finished before its start went
    // out): right before that step_completed, whose id is the event's revision.
    for (const [i, frame] of all.entries()) {
      if (Number.isInteger(Number(frame.id))) continue;
      expect(frame).toMatchObject({ event: 'step_started', id: expect.stringMatching(/^\d+\.5$/) });
      expect(all[i + 1]).toMatchObject({ event: 'step_completed', id: String(Number(frame.id) + 0.5), data: { blockId: (frame.data as { blockId: string }).blockId } });
    }

    // Reconnecting after the end replays nothing and closes.
    expect(eventsOnly(await (await reconnect('three', executionId, rest.at(-1)!.id)).rest())).toEqual([]);
    // From the start, the whole run.
    expect(eventsOnly(await (await reconnect('three', executionId)).rest()).map((f) => f.event).at(-1)).toBe('completed');
  });

  it('keeps running and recording when the client disconnects at once', async () => {
    server.respond = () => ({ content: 'done anyway', delayMs: 200 });
    const sse = await step('three', { message: 'q' });
    // The first event names the run; a comment may come before it (on a loaded machine, a keep-alive
    // did, and reading on after the close found nothing). Then the client goes.
    let started = await sse.next();
    while (started && !started.event) started = await sse.next();
    sse.close();
    const executionId = (started!.data as { executionId: string }).executionId;
    await until(async () => (await streamTypes(executionId)).includes('ExecutionCompleted'), 'the run to end without its client', 60_000);
    expect((await streamTypes(executionId)).at(-1)).toBe('ExecutionCompleted');
  });

  it('sends keep-alive comments while a model call takes long', async () => {
    server.respond = () => ({ content: 'eventually', delayMs: 600 });
    const frames = await (await step('three', { message: 'q' })).rest();
    expect(frames.filter((f) => f.comment === 'keep-alive').length).toBeGreaterThanOrEqual(2);
    expect(frames.filter((f) => f.event).at(-1)!.event).toBe('completed');
  });

  it('answers request errors as JSON before any stream starts, and 404 for a run it does not know', async () => {
    const bad = await step('three', { message: 'q', colour: 'red' });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ detail: { code: 'REQUEST_INVALID' } });
    const unknown = await reconnect('three', '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ detail: { code: 'EXECUTION_NOT_FOUND' } });
    // An id is a revision, or half of one (the start a completion tells); nothing else.
    const run = await (await step('three', { message: 'q' })).rest();
    const executionId = (run.find((f) => f.event === 'started')!.data as { executionId: string }).executionId;
    for (const id of ['0.25', '1e0', '0x1', '-2', 'last']) {
      const refused = await reconnect('three', executionId, id);
      expect(refused.status, id).toBe(422);
      expect(refused.json, id).toMatchObject({ detail: { code: 'REQUEST_INVALID', message: 'Last-Event-ID must be an event id of this stream' } });
    }
    expect(eventsOnly(await (await reconnect('three', executionId, '0.5')).rest()).map((f) => f.event).at(-1)).toBe('completed');
  });

  it('streams a failed run as a failed event', async () => {
    server.respond = () => ({ status: 401 });
    const frames = eventsOnly(await (await step('three', { message: 'q' })).rest());
    expect(frames.at(-1)).toMatchObject({ event: 'failed', data: { code: 'PROVIDER_ERROR', failureReason: 'error', step_name: 'answer' } });
  });

  describe('when the log itself fails', () => {
    /** The runtime's engine writing through a store that refuses appends of the given event types. */
    function failAppendsOf(...types: string[]) {
      const real = t.runtime.execution.eventStore;
      t.runtime.execution.eventStore = {
        ...real,
        append: (streamId, events, expected, options) =>
          events.some((e) => types.includes(e.type)) ? Promise.reject(new Error('disk full (injected)')) : real.append(streamId, events, expected, options),
      };
      return () => (t.runtime.execution.eventStore = real);
    }

    it('answers JSON (500 with an error id), not an endless stream, when the run cannot record its first event', async () => {
      const restore = failAppendsOf('ExecutionRequested');
      try {
        const answer = await step('three', { message: 'q' });
        expect(answer.status).toBe(500);
        expect(answer.json).toEqual({ detail: { code: 'INTERNAL', message: 'internal error', errorId: expect.any(String), requestId: expect.any(String) } });
      } finally {
        restore();
      }
    });

    it('ends the stream with a failed event when the run dies without recording its end', async () => {
      server.respond = () => ({ content: 'never recorded' });
      const restore = failAppendsOf('ExecutionCompleted', 'ExecutionFailed');
      try {
        const frames = eventsOnly(await (await step('three', { message: 'q' })).rest());
        // The last block (an llm block) completes in the same append as the run's end, so that append
        // failed and nothing of its completion is in the log or the stream. Its start is noted, not
        // awaited: it is in the log (and the stream) only if its own append went out before the model
        // answered; it may as well have joined the failed append. The stream shows what the log holds.
        const executionId = (frames[0]!.data as { executionId: string }).executionId;
        const logged = await streamTypes(executionId);
        expect(logged).not.toContain('ExecutionCompleted');
        // Starts the log tells: events of their own, or told by their block's completion (joinedStepStarts.ts).
        const told = (await t.runtime.eventStore.readStream(`execution-${executionId}`)).filter((e) => e.type === 'ExecutionStepStarted' || (e.data as { started?: unknown }).started !== undefined);
        const lastStart = told.length === 3 ? ['step_started'] : [];
        expect(logged.filter((type) => type === 'ExecutionStepCompleted')).toHaveLength(2);
        expect(frames.map((f) => f.event)).toEqual(['started', 'step_started', 'step_completed', 'step_started', 'step_completed', ...lastStart, 'failed']);
        expect(frames.at(-1)!.data).toMatchObject({ code: 'INTERNAL', failureReason: 'error' });
      } finally {
        restore();
      }
    });
  });
});
