import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { type RecordedRequest, type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const agent = (extra: Record<string, unknown> = {}) => ({ name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Help with: {{message}}', processor_config: { tools_enabled: true, ...extra } });
const flows: Record<string, unknown[]> = {
  assistant: [{ block: agent() }],
  between: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { city: input.message.trim() };' } },
    { block: { ...agent(), prompt: 'Weather for {{previous_output.city}}?' } },
    { block: { name: 'post', processor_type: 'code', code: 'return { final: input.previous_output };' } },
  ],
  capped: [{ block: agent({ max_tool_iterations: 2 }) }],
  long: [{ block: agent({ max_tool_iterations: 30 }) }],
  plain: [{ block: { name: 'plain', processor_type: 'llm', prompt: '{{message}}' } }],
  inparallel: [{ parallel: [agent(), { name: 'side', processor_type: 'passthrough' }] }],
  inloop: [{ loop: { over: 'parameters.items', block: agent() } }],
  'two-agents': [{ block: agent() }, { block: { ...agent(), name: 'second' } }],
  // Block names that are also names of Object.prototype's properties.
  inherited: [{ block: { name: 'constructor', processor_type: 'passthrough' } }, { block: { ...agent(), name: '__proto__' } }],
};

const weather = { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const time = { type: 'function', function: { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: {} } } };
const tools = [weather, time];

interface Answer {
  status?: string;
  executionId: string;
  pausedAtStep: string;
  iterationsUsed: number;
  toolCallMessages: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] }[];
  toolCalls: { id: string; function: { name: string; arguments: string } }[];
  accumulatedOutputs: Record<string, unknown>;
  result?: unknown;
  detail: { code: string; message: string; executionId?: string };
}

const toolResult = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });
/** Replies with tool calls while the conversation has fewer than `turns` tool results, then with text. */
const callsUntil = (turns: number, final = 'done') => (request: RecordedRequest) => {
  const results = request.body.messages.filter((m) => m.role === 'tool').length;
  return results < turns ? { toolCalls: [{ id: `call_${results + 1}`, name: 'get_weather', arguments: JSON.stringify({ city: 'Oslo' }) }] } : { content: final };
};

describe('tool calls on /execute (real API, scripted model server)', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  const post = async (flow: string, body: unknown) => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const resume = (flow: string, pause: Answer, results: unknown[], extra: Record<string, unknown> = {}) =>
    post(flow, { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, ...results], tools, ...extra });
  const types = async (executionId: string) => (await t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e: RecordedEvent) => e.type);

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('tools', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '10000000', SEQFLOW_LLM_MAX_RETRIES: '0' });
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

  describe('pause and resume', () => {
    it('counts iterations and keeps outputs of blocks named like inherited properties (__proto__, constructor)', async () => {
      server.respond = callsUntil(1, 'done');
      const pause = await post('inherited', { message: 'hi', tools });
      expect(pause.status).toBe(200);
      expect(pause.body).toMatchObject({ status: 'tool_calls_required', pausedAtStep: '__proto__', iterationsUsed: 1 });
      expect(Object.keys(pause.body.accumulatedOutputs)).toEqual(['constructor']);
      expect(pause.body.accumulatedOutputs.constructor).toBe('hi');
      const done = await resume('inherited', pause.body, [toolResult('call_1', 'ok')]);
      expect(done.body).toMatchObject({ status: 'completed', result: { text: 'done' } });
    });

    it('pauses when the model asks for a tool, and completes when the caller sends the result (one iteration)', async () => {
      server.respond = callsUntil(1, 'It is 21 degrees in Oslo.');
      const pause = await post('assistant', { message: 'weather in Oslo?', tools });
      expect(pause.status).toBe(200);
      expect(pause.body).toEqual({
        status: 'tool_calls_required',
        executionId: expect.any(String),
        pausedAtStep: 'agent',
        iterationsUsed: 1,
        toolCallMessages: [
          { role: 'user', content: 'Help with: weather in Oslo?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        ],
        toolCalls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        accumulatedOutputs: {},
      });
      expect(server.requests[0]!.body).toMatchObject({ tools, tool_choice: 'auto' });
      expect(await types(pause.body.executionId)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'CreditsConsumed', 'ExecutionPausedForToolCalls']);

      const done = await resume('assistant', pause.body, [toolResult('call_1', '{"temperature":21}')]);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'completed', result: { text: 'It is 21 degrees in Oslo.' }, executionId: pause.body.executionId, blockCount: 1 });
      expect(server.requests[1]!.body.messages).toEqual([...pause.body.toolCallMessages, toolResult('call_1', '{"temperature":21}')]);
      expect(await types(pause.body.executionId)).toEqual([
        'ExecutionRequested', 'ExecutionStepStarted', 'CreditsConsumed', 'ExecutionPausedForToolCalls',
        'ExecutionResumed', 'ExecutionStepCompleted', 'CreditsConsumed', 'ExecutionCompleted',
      ]);
    });

    it('fails a call for a tool that was never offered (another name, or no tools at all) as MODEL_OUTPUT_INVALID, and pauses for nothing (issue 60 point 6)', async () => {
      server.script({ toolCalls: [{ id: 'call_x', name: 'delete_everything', arguments: '{}' }] });
      const unknown = await post('assistant', { message: 'weather in Oslo?', tools });
      expect(unknown.status).toBe(502);
      expect(unknown.body.detail).toMatchObject({ code: 'MODEL_OUTPUT_INVALID', message: expect.stringMatching(/asked for a tool that was not offered .*: asked for delete_everything$/) });
      expect(await types(String(unknown.body.detail.executionId))).not.toContain('ExecutionPausedForToolCalls');
      // A block that is not tools-enabled, in a run that declared none.
      server.script({ toolCalls: [{ id: 'call_y', name: 'get_weather', arguments: '{}' }] });
      const none = await post('plain', { message: 'hi' });
      expect(none.status).toBe(502);
      expect(none.body.detail).toMatchObject({ code: 'MODEL_OUTPUT_INVALID', message: expect.stringContaining('the block was given no tools') });
      expect(await types(String(none.body.detail.executionId))).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepFailed', 'CreditsConsumed', 'ExecutionFailed']);
    });

    it('loops while the model keeps asking (two iterations), counting iterations from its own events', async () => {
      server.respond = callsUntil(2);
      const first = await post('assistant', { message: 'q', tools });
      const second = await resume('assistant', first.body, [toolResult('call_1', 'r1')], { iterationsUsed: 99 });
      expect(second.body).toMatchObject({ status: 'tool_calls_required', iterationsUsed: 2, toolCalls: [{ id: 'call_2' }] });
      const done = await resume('assistant', second.body, [toolResult('call_2', 'r2')], { iterationsUsed: 0 });
      expect(done.body).toMatchObject({ status: 'completed', result: { text: 'done' } });
    });

    it('runs a loop of more than 25 iterations when the block allows it', async () => {
      server.respond = callsUntil(26);
      let answer = (await post('long', { message: 'q', tools })).body;
      for (let i = 1; i <= 26; i++) {
        expect(answer).toMatchObject({ status: 'tool_calls_required', iterationsUsed: i });
        answer = (await resume('long', answer, [toolResult(`call_${i}`, `result ${i}`)])).body;
      }
      expect(answer).toMatchObject({ status: 'completed', result: { text: 'done' } });
    });

    it('answers 409 TOOL_ITERATION_LIMIT when a block reaches max_tool_iterations, and 25 by default', async () => {
      server.respond = callsUntil(1000);
      let answer = (await post('capped', { message: 'q', tools })).body;
      answer = (await resume('capped', answer, [toolResult('call_1', 'r')])).body;
      expect(answer.iterationsUsed).toBe(2);
      const limit = await resume('capped', answer, [toolResult('call_2', 'r')]);
      expect(limit.status).toBe(409);
      expect(limit.body.detail).toMatchObject({ code: 'TOOL_ITERATION_LIMIT' });
      expect((await types(answer.executionId)).at(-1)).toBe('ExecutionFailed');

      let defaultCap = (await post('assistant', { message: 'q', tools })).body;
      for (let i = 1; i < 25; i++) defaultCap = (await resume('assistant', defaultCap, [toolResult(`call_${i}`, 'r')])).body;
      expect(defaultCap.iterationsUsed).toBe(25);
      expect((await resume('assistant', defaultCap, [toolResult('call_25', 'r')])).status).toBe(409);
    });

    it('handles parallel tool calls in one turn, results in any order', async () => {
      server.script(
        { toolCalls: [{ id: 'a', name: 'get_weather', arguments: '{"city":"Oslo"}' }, { id: 'b', name: 'get_time', arguments: '{}' }] },
        { content: 'both' },
      );
      const pause = await post('assistant', { message: 'q', tools });
      expect(pause.body.toolCalls.map((c) => c.id)).toEqual(['a', 'b']);
      const done = await resume('assistant', pause.body, [toolResult('b', '12:00'), toolResult('a', 'sunny')]);
      expect(done.body).toMatchObject({ status: 'completed', result: { text: 'both' } });
    });

    it('passes toolChoice to the model: forcing a tool, required, none', async () => {
      server.respond = () => ({ content: 'ok' });
      await post('assistant', { message: 'q', tools, toolChoice: { type: 'function', function: { name: 'get_time' } } });
      await post('assistant', { message: 'q', tools, toolChoice: 'required' });
      await post('assistant', { message: 'q', tools, toolChoice: 'none' });
      expect(server.requests.map((r) => r.body.tool_choice)).toEqual([{ type: 'function', function: { name: 'get_time' } }, 'required', 'none']);
    });

    it('runs a tools block between other blocks: earlier outputs accumulate, later blocks run after the resume', async () => {
      server.respond = callsUntil(1, 'Sunny');
      const pause = await post('between', { message: ' Oslo ', tools });
      expect(pause.body).toMatchObject({ pausedAtStep: 'agent', accumulatedOutputs: { prep: { city: 'Oslo' } } });
      expect(server.requests[0]!.body.messages[0]!.content).toBe('Weather for Oslo?');
      const done = await resume('between', pause.body, [toolResult('call_1', 'sunny')]);
      expect(done.body).toMatchObject({ status: 'completed', result: { final: 'Sunny' }, blockCount: 3 });
    });

    it("passes a caller's tool failure reported as content to the model, and the loop goes on", async () => {
      server.respond = callsUntil(2, 'recovered');
      const pause = await post('assistant', { message: 'q', tools });
      const again = await resume('assistant', pause.body, [toolResult('call_1', 'Error: weather service unavailable')]);
      expect(server.requests[1]!.body.messages.at(-1)).toEqual(toolResult('call_1', 'Error: weather service unavailable'));
      expect(again.body).toMatchObject({ status: 'tool_calls_required', iterationsUsed: 2 });
      expect((await resume('assistant', again.body, [toolResult('call_2', 'ok')])).body).toMatchObject({ result: { text: 'recovered' } });
    });

    it('lets exactly one of two racing resumes win; the other gets EXECUTION_ID_INVALID', async () => {
      server.respond = callsUntil(1, 'once');
      const pause = await post('assistant', { message: 'q', tools });
      const outcomes = await Promise.all([resume('assistant', pause.body, [toolResult('call_1', 'x')]), resume('assistant', pause.body, [toolResult('call_1', 'y')])]);
      expect(outcomes.map((o) => o.status).sort()).toEqual([200, 400]);
      expect(outcomes.find((o) => o.status === 400)!.body.detail.code).toBe('EXECUTION_ID_INVALID');
      expect((await types(pause.body.executionId)).filter((type) => type === 'ExecutionResumed')).toHaveLength(1);
    });

    it('decides a race of eight resumes of one pause before any model call: one model call, one charge', async () => {
      server.respond = callsUntil(1, 'once');
      const pause = await post('assistant', { message: 'q', tools });
      const callsBefore = server.requests.length;
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => resume('assistant', pause.body, [toolResult('call_1', `result ${i}`)])));
      expect(outcomes.filter((o) => o.status === 200)).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 400).map((o) => o.body.detail.code)).toEqual(Array(7).fill('EXECUTION_ID_INVALID'));
      // The losers called no model: model calls equal charges.
      expect(server.requests.length - callsBefore).toBe(1);
      const events = await t.runtime.eventStore.readStream(`execution-${pause.body.executionId}`);
      const resumed = events.findIndex((e) => e.type === 'ExecutionResumed');
      expect(events.slice(resumed).filter((e) => e.type === 'CreditsConsumed')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'ExecutionResumed')).toHaveLength(1);
    });

    it('answers a resume whose append failed as not started: nothing of it recorded, the run still paused, and the same resume retried goes on', async () => {
      server.respond = callsUntil(1);
      const pause = (await post('assistant', { message: 'q', tools })).body;
      const before = await types(pause.executionId);
      // Injected in PostgreSQL itself: the append that carries the resume fails, as when the log goes away.
      await sql`CREATE FUNCTION fail_marked_resume() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'append failed (injected)'; END $$`.execute(t.runtime.db);
      await sql`CREATE TRIGGER fail_marked_resume BEFORE INSERT ON seqflow_events FOR EACH ROW WHEN (NEW.event_type = 'ExecutionResumed' AND NEW.stream_id = ${sql.lit('execution-' + pause.executionId)}) EXECUTE FUNCTION fail_marked_resume()`.execute(t.runtime.db);
      try {
        const failed = await resume('assistant', pause, [toolResult('call_1', 'resume-marker')]);
        expect(failed.status).toBe(500);
        expect(failed.body.detail.code).toBe('INTERNAL');
        expect(failed.body.detail).not.toHaveProperty('executionId');
        expect(await types(pause.executionId)).toEqual(before);
      } finally {
        await sql`DROP TRIGGER fail_marked_resume ON seqflow_events`.execute(t.runtime.db);
      }
      const retried = await resume('assistant', pause, [toolResult('call_1', 'resume-marker')]);
      expect(retried).toMatchObject({ status: 200, body: { status: 'completed', executionId: pause.executionId } });
      expect((await types(pause.executionId)).filter((type) => type === 'ExecutionResumed')).toHaveLength(1);
    });
  });

  describe('every error of the spec', () => {
    let pause: Answer;
    beforeEach(async () => {
      server.respond = callsUntil(1);
      pause = (await post('assistant', { message: 'q', tools })).body;
    });

    const bigSchema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`field_${i}`, { type: 'string' }])) };
    it.each([
      ['TOOLS_INVALID', 400, { message: 'q', tools: [{ type: 'function' }] }],
      ['TOOLS_INVALID', 400, { message: 'q', tools: [weather, weather] }],
      ['TOOLS_INVALID', 400, { message: 'q', tools: [{ ...weather, function: { ...weather.function, parameters: bigSchema } }] }],
      ['TOOLS_INVALID', 400, { message: 'q', tools: Array.from({ length: 65 }, (_, i) => ({ type: 'function', function: { name: `t${i}` } })) }],
      ['TOOLS_INVALID', 400, { message: 'q', tools, toolChoice: { type: 'function', function: { name: 'not_sent' } } }],
      ['TOOLS_INVALID', 400, { message: 'q', tools, toolChoice: 'sometimes' }],
      ['TOOL_NAME_INVALID', 400, { message: 'q', tools: [{ type: 'function', function: { name: '9starts-with-digit' } }] }],
      ['TOOL_NAME_INVALID', 400, { message: 'q', tools: [{ type: 'function', function: { name: 'has space' } }] }],
      ['TOOL_NAME_INVALID', 400, { message: 'q', tools: [{ type: 'function', function: { name: 'x'.repeat(65) } }] }],
    ])('%s (%i) for a bad tools request', async (code, status, body) => {
      const answer = await post('assistant', body);
      expect(answer.status).toBe(status);
      expect(answer.body.detail.code).toBe(code);
    });

    it('422 TOOLS_NOT_ENABLED and TOOLS_IN_NON_SEQUENTIAL_STEP (parallel and loop)', async () => {
      expect((await post('plain', { message: 'q', tools })).body.detail.code).toBe('TOOLS_NOT_ENABLED');
      for (const flow of ['inparallel', 'inloop']) {
        const answer = await post(flow, { message: 'q', tools, parameters: { items: [1] } });
        expect(answer.status).toBe(422);
        expect(answer.body.detail.code).toBe('TOOLS_IN_NON_SEQUENTIAL_STEP');
      }
    });

    it('400 INVALID_RESUME when executionId, pausedAtStep or toolCallMessages is missing, or tools are not sent again', async () => {
      for (const omit of ['executionId', 'pausedAtStep', 'toolCallMessages'] as const) {
        const body: Record<string, unknown> = { executionId: pause.executionId, pausedAtStep: 'agent', toolCallMessages: pause.toolCallMessages, tools };
        delete body[omit];
        const answer = await post('assistant', body);
        expect([answer.status, answer.body.detail.code]).toEqual([400, 'INVALID_RESUME']);
      }
      const noTools = await post('assistant', { executionId: pause.executionId, pausedAtStep: 'agent', toolCallMessages: [...pause.toolCallMessages, toolResult('call_1', 'r')] });
      expect(noTools.body.detail.code).toBe('INVALID_RESUME');
    });

    it('400 TOOL_RESULTS_MISMATCH for missing, extra, duplicated or unknown result ids', async () => {
      for (const results of [[], [toolResult('call_1', 'a'), toolResult('call_1', 'b')], [toolResult('call_9', 'a')], [toolResult('call_1', 'a'), toolResult('call_2', 'b')], [{ role: 'user', content: 'hi' }]]) {
        const answer = await resume('assistant', pause, results);
        expect([answer.status, answer.body.detail.code]).toEqual([400, 'TOOL_RESULTS_MISMATCH']);
      }
    });

    it('400 TOOL_HISTORY_TAMPERED when the earlier messages differ from the recorded conversation', async () => {
      const edited = structuredClone(pause);
      edited.toolCallMessages[0]!.content = 'Help with: something else';
      expect((await resume('assistant', edited, [toolResult('call_1', 'r')])).body.detail.code).toBe('TOOL_HISTORY_TAMPERED');
      const dropped = { ...pause, toolCallMessages: pause.toolCallMessages.slice(1) };
      expect((await resume('assistant', dropped, [toolResult('call_1', 'r')])).body.detail.code).toBe('TOOL_HISTORY_TAMPERED');
      // The untouched conversation still resumes: a refused attempt changes nothing.
      expect((await resume('assistant', pause, [toolResult('call_1', 'r')])).status).toBe(200);
    });

    it('400 PAUSED_STEP_INVALID when pausedAtStep is not a tools-enabled block', async () => {
      for (const step of ['prep', 'nope']) {
        const answer = await resume('assistant', { ...pause, pausedAtStep: step }, [toolResult('call_1', 'r')]);
        expect([answer.status, answer.body.detail.code]).toEqual([400, 'PAUSED_STEP_INVALID']);
      }
    });

    it('400 EXECUTION_ID_INVALID for an unknown run, a run of another flow, a pause already resumed, and a resume at another tool block', async () => {
      const unknown = await resume('assistant', { ...pause, executionId: '00000000-0000-4000-8000-000000000000' }, [toolResult('call_1', 'r')]);
      expect(unknown.body.detail.code).toBe('EXECUTION_ID_INVALID');
      const otherFlow = await post('between', { executionId: pause.executionId, pausedAtStep: 'agent', toolCallMessages: [...pause.toolCallMessages, toolResult('call_1', 'r')], tools });
      expect(otherFlow.body.detail.code).toBe('EXECUTION_ID_INVALID');
      expect((await resume('assistant', pause, [toolResult('call_1', 'r')])).status).toBe(200);
      const again = await resume('assistant', pause, [toolResult('call_1', 'r')]);
      expect([again.status, again.body.detail.code]).toEqual([400, 'EXECUTION_ID_INVALID']);

      // Paused at the first of two tool blocks; a resume naming the second is not this pause.
      const first = (await post('two-agents', { message: 'q', tools })).body;
      expect(first.pausedAtStep).toBe('agent');
      const wrongStep = await resume('two-agents', { ...first, pausedAtStep: 'second' }, [toolResult('call_1', 'r')]);
      expect([wrongStep.status, wrongStep.body.detail.code]).toEqual([400, 'EXECUTION_ID_INVALID']);
    });

    it('413 MESSAGES_TOO_LARGE over 1 MB, and TOOLS_INVALID for one result over 256 KB', async () => {
      const huge = await resume('assistant', pause, [toolResult('call_1', 'x'.repeat(1024 * 1024))]);
      expect([huge.status, huge.body.detail.code]).toEqual([413, 'MESSAGES_TOO_LARGE']);
      const large = await resume('assistant', pause, [toolResult('call_1', 'x'.repeat(257 * 1024))]);
      expect([large.status, large.body.detail.code]).toEqual([400, 'TOOLS_INVALID']);
    });

    it('500 TOOLS_UNSUPPORTED when the model or gateway does not support function calling', async () => {
      server.respond = () => ({ status: 400, errorBody: { error: { message: 'This model does not support tools (function calling).', type: 'invalid_request_error' } } });
      const answer = await post('assistant', { message: 'q', tools });
      expect(answer.status).toBe(500);
      expect(answer.body.detail.code).toBe('TOOLS_UNSUPPORTED');
      expect(answer.body.detail.message).toContain('does not support function calling');
    });
  });
});
