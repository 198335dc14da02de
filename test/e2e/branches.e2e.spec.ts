import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { eventsApart } from '../support/runEventsApart.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';

const queueSchema = { type: 'object', properties: { queue: { type: 'string' } }, required: ['queue'], additionalProperties: false };
const code = (name: string, body: string) => ({ name, processor_type: 'code', code: body });
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

/**
 * Switch steps and while loops (issue 61 point 7, additions to the spec), run end to end against
 * the scripted model server: only the chosen branch runs and the others are recorded skipped with
 * what their conditions read; a while loop runs until its condition fails, never past
 * max_iterations; a branch that pauses for the caller's tools resumes as a step of its own does.
 */
describe('switch steps and while loops', () => {
  let service: SeededService;
  const eventsOf = async (executionId: string) => eventsApart(await service.t.runtime.eventStore.readStream(executionStream(executionId))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  beforeAll(async () => {
    service = await startSeededService('branches', {
      router: [
        { block: { name: 'route', processor_type: 'llm', model: 'gpt-4o', prompt: 'Route: {{message}}', output_schema: queueSchema } },
        {
          switch: {
            cases: [
              { when: "steps.route.output.queue = 'refund'", block: code('refund', 'return { path: "refund", amount: input.parameters.amount };') },
              { when: "steps.route.output.queue = 'tech'", block: code('tech', 'return { path: "tech" };') },
            ],
            default: code('other', 'return { path: "other" };'),
          },
        },
        { block: code('after', 'return { chosen: input.previous_output.path, refund: input.steps.refund, tech: input.steps.tech };') },
      ],
      improve: [{ loop: { while: '$not($exists(previous_output.score)) or previous_output.score < 8', max_iterations: 5, block: code('draft', 'return { score: (input.previous_output?.score ?? 0) + 3 };') } }],
      stuck: [{ loop: { while: 'true', max_iterations: 3, block: code('again', 'return { n: (input.previous_output?.n ?? 0) + 1 };') } }],
      helper: [
        {
          switch: {
            cases: [{ when: 'input.parameters.weather = true', block: { name: 'forecaster', processor_type: 'llm', model: 'gpt-4o', prompt: 'Weather for {{message}}', processor_config: { tools_enabled: true } } }],
            default: code('plain', 'return { text: "no weather" };'),
          },
        },
      ],
    });
  }, 60_000);
  afterAll(async () => service?.close());
  beforeEach(() => service.model.reset());

  it('runs only the chosen branch; the others are recorded skipped with what their conditions read, and the next step reads the chosen one', async () => {
    service.model.script({ content: '{"queue":"refund"}' });
    const { status, body } = await service.execute('router', { message: 'money back please', parameters: { amount: 40 } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ chosen: 'refund', refund: { path: 'refund', amount: 40 }, tech: null });
    const events = await eventsOf(body.executionId!);
    expect(events.filter((e) => e.type === 'ExecutionStepCompleted').map((e) => e.data.blockName)).toEqual(['route', 'refund', 'after']);
    expect(events.filter((e) => e.type === 'ExecutionStepSkipped').map((e) => e.data)).toEqual([
      expect.objectContaining({ blockName: 'tech', condition: "steps.route.output.queue = 'tech'", values: {}, branch: { chosen: 'refund', evaluated: false } }),
      expect.objectContaining({ blockName: 'other', condition: 'default', values: {}, branch: { chosen: 'refund', evaluated: false } }),
    ]);

    service.model.script({ content: '{"queue":"billing"}' });
    const other = await service.execute('router', { message: 'an invoice', parameters: {} });
    expect((other.body as { result?: unknown }).result).toEqual({ chosen: 'other', refund: null, tech: null });
    const trace = await runTrace(service.t.runtime.eventStore, {}, other.body.executionId!);
    expect(trace.steps.filter((s) => s.status === 'skipped').map((s) => [s.name, s.conditionValues, s.branch])).toEqual([
      ['refund', { 'steps.route.output.queue': 'billing' }, { chosen: 'other', evaluated: true }],
      ['tech', { 'steps.route.output.queue': 'billing' }, { chosen: 'other', evaluated: true }],
    ]);
    expect((await replayExecution(service.t.runtime.eventStore, other.body.executionId!)).divergence).toBeNull();
  });

  it('loops while the condition holds on the last iteration, and never past max_iterations', async () => {
    const improved = await service.execute('improve', { message: 'essay' });
    expect(improved.status, JSON.stringify(improved.body)).toBe(200);
    expect((improved.body as { result?: unknown }).result).toEqual({ value: [{ score: 3 }, { score: 6 }, { score: 9 }] });
    const events = await eventsOf(improved.body.executionId!);
    expect(events.filter((e) => e.type === 'ExecutionStepCompleted').map((e) => e.data.iteration)).toEqual([0, 1, 2]);

    const stuck = await service.execute('stuck', { message: 'x' });
    expect((stuck.body as { result?: unknown }).result).toEqual({ value: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it("pauses in a branch for the caller's tools and resumes there: the branch is chosen again, nothing recorded twice", async () => {
    service.model.script({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] }, { content: 'Rain in Oslo' });
    const paused = await service.execute('helper', { message: 'Oslo', parameters: { weather: true }, tools: [weather] });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const pause = paused.body as unknown as { executionId: string; pausedAtStep: string; iterationsUsed: number; toolCallMessages: unknown[] };
    expect(pause.pausedAtStep).toBe('forecaster');
    const answer = await fetch(`${service.base}/seq/acme/web/helper/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'call_1', content: 'rain' }], tools: [weather] }),
    });
    const done = (await answer.json()) as { result?: unknown };
    expect(answer.status, JSON.stringify(done)).toBe(200);
    expect(done.result).toEqual({ text: 'Rain in Oslo' });
    const events = await eventsOf(pause.executionId);
    expect(events.filter((e) => e.type === 'ExecutionStepSkipped').map((e) => e.data.blockName)).toEqual(['plain']);
    expect((await replayExecution(service.t.runtime.eventStore, pause.executionId)).divergence).toBeNull();
  });
});
