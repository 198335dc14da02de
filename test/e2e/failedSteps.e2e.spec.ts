import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayExecution } from '../../src/audit/runAudit.ts';
import type { ModelAttempt, ModelCall } from '../../src/domain/execution/executionEvents.ts';
import { runTrace, stepTrace } from '../../src/testing/runTrace.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import type { TestRuntime } from '../support/testRuntime.ts';

const scoreSchema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'], additionalProperties: false };
const flows = {
  graded: [{ block: { name: 'grade', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Grade: {{message}}', output_schema: scoreSchema } }],
  broken: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("no such field");' } }],
};

/** When the model ignores the output schema, or code throws, the step shows as failed with what it got. */
describe('failed steps you can debug', () => {
  let service: SeededService;
  let model: ScriptedModelServer;
  let t: TestRuntime;

  beforeAll(async () => {
    service = await startSeededService('failed_steps', flows);
    ({ model, t } = service);
  });
  afterAll(async () => {
    await service?.close();
  });

  const execute = async (flow: string, message: string) => {
    const { status, body } = await service.execute(flow, { message });
    return { status, executionId: body.executionId ?? body.detail?.executionId ?? '', body };
  };
  const eventsOf = async (executionId: string) => t.runtime.eventStore.readStream(`execution-${executionId}`);

  it('records every reply of a model that ignored the schema, cut with its length, its tokens and why it was refused; the charge adds up; the step is failed in the traces', async () => {
    model.script({ content: `not json ${'x'.repeat(3000)}`, usage: { prompt_tokens: 40, completion_tokens: 900 } }, { content: '{"grade": "A"}', usage: { prompt_tokens: 60, completion_tokens: 7 } });
    const run = await execute('graded', 'an essay');
    expect(run.status).toBe(502);
    expect(run.body.detail?.code).toBe('MODEL_OUTPUT_INVALID');
    const events = await eventsOf(run.executionId);
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepFailed', 'CreditsConsumed', 'ExecutionFailed']);

    const failed = events[2]!.data as { code: string; model: string; usage: { totalTokens: number }; attempts: ModelAttempt[] };
    expect(failed).toMatchObject({ blockName: 'grade', code: 'MODEL_OUTPUT_INVALID', model: 'gpt-4o-mini', usage: { totalTokens: 1007 } });
    expect(failed.attempts).toHaveLength(2);
    expect(failed.attempts[0]).toMatchObject({ replyLength: 3009, usage: { totalTokens: 940 }, rejection: expect.stringContaining('JSON') });
    expect(failed.attempts[0]!.reply).toHaveLength(2000);
    expect(failed.attempts[1]).toMatchObject({ reply: '{"grade": "A"}', replyLength: 14, usage: { totalTokens: 67 }, rejection: expect.any(String) });
    // Credits match the attempts.
    expect((events[3]!.data as { tokens: number }).tokens).toBe(940 + 67);
    expect((await replayExecution(t.runtime.eventStore, run.executionId)).divergence).toBeNull();

    const trace = await runTrace(t.runtime.eventStore, {}, run.executionId);
    expect(trace.steps).toEqual([expect.objectContaining({ name: 'grade', status: 'failed', model: 'gpt-4o-mini', attempts: 2, error: expect.objectContaining({ code: 'MODEL_OUTPUT_INVALID' }) })]);
    const step = await stepTrace(t.runtime.eventStore, {}, run.executionId, String(trace.steps[0]!.stepId));
    expect(step.executions[0]).toMatchObject({ status: 'failed', model: 'gpt-4o-mini', attempts: 2, usage: { totalTokens: 1007 }, error: { code: 'MODEL_OUTPUT_INVALID' } });
    expect(step.executions[0]!.replies.map((reply) => reply.replyLength)).toEqual([3009, 14]);
  });

  it('keeps the refused reply of a step that its repair attempt saved', async () => {
    model.script({ content: 'sure, here you go', usage: { prompt_tokens: 10, completion_tokens: 5 } }, { content: { score: 7 }, usage: { prompt_tokens: 20, completion_tokens: 3 } });
    const run = await execute('graded', 'another essay');
    expect(run.status).toBe(200);
    const completed = (await eventsOf(run.executionId)).find((e) => e.type === 'ExecutionStepCompleted')!.data as { attempts: number; rejectedReplies?: ModelAttempt[] };
    expect(completed.attempts).toBe(2);
    expect(completed.rejectedReplies).toEqual([{ reply: 'sure, here you go', replyLength: 17, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, rejection: expect.any(String) }]);
  });

  it("lays each model request out in its step's time: a refused reply and its repair one after the other, a request the provider refused as failed", async () => {
    model.script({ content: 'not json', delayMs: 60 }, { content: { score: 3 }, delayMs: 40 });
    const repaired = await execute('graded', 'timed essay');
    expect(repaired.status).toBe(200);
    const completed = (await eventsOf(repaired.executionId)).find((e) => e.type === 'ExecutionStepCompleted')!.data as { durationMs: number; modelCalls: ModelCall[] };
    expect(completed.modelCalls.map((c) => c.outcome)).toEqual(['answered', 'answered']);
    const [first, second] = completed.modelCalls as [ModelCall, ModelCall];
    // Each took at least the delay the model server held it for, the repair went out after the first came back, and both lie within the step.
    expect(first.durationMs).toBeGreaterThanOrEqual(60);
    expect(second.durationMs).toBeGreaterThanOrEqual(40);
    expect(second.startMs).toBeGreaterThanOrEqual(first.startMs + first.durationMs);
    expect(second.startMs + second.durationMs).toBeLessThanOrEqual(completed.durationMs + 1);
    const trace = await runTrace(t.runtime.eventStore, {}, repaired.executionId);
    expect(trace.steps[0]).toMatchObject({ name: 'grade', modelCalls: completed.modelCalls, offsetMs: expect.any(Number) });
    expect((trace.steps[0]!.offsetMs as number) + completed.durationMs).toBeLessThanOrEqual(trace.durationMs! + 1);

    model.script({ status: 400, errorBody: { error: { message: 'Invalid value for temperature', type: 'invalid_request_error' } } });
    const refused = await execute('graded', 'refused essay');
    const failed = (await eventsOf(refused.executionId)).find((e) => e.type === 'ExecutionStepFailed')!.data as { modelCalls: ModelCall[] };
    expect(failed.modelCalls).toEqual([expect.objectContaining({ startMs: expect.any(Number), outcome: 'failed' })]);
  });

  it('marks a code block that threw as failed, with its error', async () => {
    const run = await execute('broken', 'x');
    expect(run.status).toBe(422);
    const events = await eventsOf(run.executionId);
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepFailed', 'ExecutionFailed']);
    expect(events[2]!.data).toMatchObject({ blockName: 'boom', code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: expect.stringContaining('no such field'), model: null, attempts: [] });
    const trace = await runTrace(t.runtime.eventStore, {}, run.executionId);
    expect(trace.steps).toEqual([expect.objectContaining({ name: 'boom', status: 'failed', error: expect.objectContaining({ code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: expect.stringContaining('no such field') }) })]);
  });
});
