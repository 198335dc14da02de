import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTrace } from '../../src/testing/runTrace.ts';
import type { RecordedRequest } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { openSse } from '../support/sseClient.ts';

const routeSchema = { type: 'object', properties: { queue: { type: 'string' }, urgent: { type: 'boolean' } }, required: ['queue', 'urgent'], additionalProperties: false };
const flows: Record<string, unknown[]> = {
  triage: [
    { block: { name: 'route', processor_type: 'llm', prompt: 'Classify: {{message}}', output_schema: routeSchema } },
    { block: { name: 'escalate', processor_type: 'llm', prompt: 'Escalate: {{message}}', run_if: 'steps.route.output.urgent = true' } },
    { parallel: [{ name: 'billing_note', processor_type: 'passthrough' }, { name: 'refund_note', processor_type: 'passthrough' }], run_if: 'steps.route.output.queue in ["billing", "refunds"] and $not($exists(input.parameters.quiet))' },
    { block: { name: 'final', processor_type: 'code', code: 'return { escalated: input.steps.escalate, notes: input.steps.billing_note, before: input.previous_output };' } },
  ],
  mistaken: [
    { block: { name: 'route', processor_type: 'llm', prompt: 'Classify: {{message}}', output_schema: routeSchema } },
    { block: { name: 'oops', processor_type: 'passthrough', run_if: 'steps.route.output.queue' } },
  ],
};

const promptOf = (request: RecordedRequest) => String(request.body.messages.at(-1)?.content);

describe('conditional steps (run_if)', () => {
  let s: SeededService;
  let urgent = false;
  beforeAll(async () => {
    s = await startSeededService('run_if', flows);
    s.model.respond = (request) => (promptOf(request).startsWith('Classify') ? { content: JSON.stringify({ queue: 'billing', urgent }) } : { content: 'escalated' });
  });
  afterAll(async () => s?.close());

  const events = async (executionId: string) => (await s.t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  it('skips a block whose condition is false: no model call, no charge, recorded with what it read, read later as null', async () => {
    urgent = false;
    const answer = await s.execute('triage', { message: 'charged twice' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'completed', result: { escalated: null, notes: 'charged twice' } });
    const executionId = answer.body.executionId!;
    expect(s.model.requests.filter((r) => promptOf(r).startsWith('Escalate'))).toHaveLength(0);
    const log = await events(executionId);
    expect(log.filter((e) => e.type === 'ExecutionStepSkipped').map((e) => e.data)).toEqual([
      { executionId, stepIndex: 1, blockId: expect.any(String), blockName: 'escalate', iteration: null, condition: 'steps.route.output.urgent = true', values: { 'steps.route.output.urgent': false }, branch: null },
    ]);
    expect(log.filter((e) => e.type === 'CreditsConsumed').map((e) => e.data.blockName)).toEqual(['route']);
    // The parallel step ran (its condition held): after the skipped block its previous output was null, so each passthrough forwarded the message, as a first block does.
    expect((answer.body as { result: { before: unknown } }).result.before).toEqual({ billing_note: 'charged twice', refund_note: 'charged twice' });
  });

  it('runs the block when its condition is true, and skips a whole parallel step when its condition is false', async () => {
    urgent = true;
    const answer = await s.execute('triage', { message: 'card stolen', parameters: { quiet: true } });
    expect(answer.status).toBe(200);
    expect((answer.body as { result: unknown }).result).toEqual({ escalated: 'escalated', notes: null, before: { billing_note: null, refund_note: null } });
    const skipped = (await events(answer.body.executionId!)).filter((e) => e.type === 'ExecutionStepSkipped').map((e) => [e.data.blockName, e.data.values]);
    expect(skipped).toEqual([
      ['billing_note', { 'steps.route.output.queue': 'billing', 'input.parameters.quiet': true }],
      ['refund_note', { 'steps.route.output.queue': 'billing', 'input.parameters.quiet': true }],
    ]);
  });

  it('shows a skipped block in the trace, with its condition and values', async () => {
    urgent = false;
    const { executionId } = (await s.execute('triage', { message: 'x' })).body;
    // The trace the console's run page and MCP's get_run show.
    const trace = await runTrace(s.t.runtime.eventStore, {}, executionId!);
    expect(trace.steps.find((step) => step.name === 'escalate')).toMatchObject({ status: 'skipped', condition: 'steps.route.output.urgent = true', conditionValues: { 'steps.route.output.urgent': false } });
  });

  it("sends step_skipped on /step only to a caller that asks with ?events=extended: the spec's stream stays exact", async () => {
    urgent = false;
    const read = async (query: string) => {
      const stream = await openSse(`${s.base}/seq/acme/web/triage/step${query}`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'y' }) });
      expect(stream.status).toBe(200);
      return (await stream.rest()).filter((f) => f.event !== undefined && f.event !== 'token').map((f) => f.event);
    };
    const plain = await read('');
    expect(plain).not.toContain('step_skipped');
    expect(plain.at(-1)).toBe('completed');
    const extended = await read('?events=extended');
    expect(extended.filter((e) => e === 'step_skipped')).toHaveLength(1);
    expect(extended.indexOf('step_skipped')).toBeGreaterThan(extended.indexOf('step_completed'));
    const refused = await fetch(`${s.base}/seq/acme/web/triage/step?events=everything`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'y' }) });
    expect({ status: refused.status, body: refused.status === 200 ? await refused.text() : await refused.json() }).toMatchObject({ status: 422, body: { detail: { code: "VALIDATION_FAILED" } } });
  });

  it('fails the run with RUN_IF_FAILED when a condition gives something other than true or false', async () => {
    const answer = await s.execute('mistaken', { message: 'z' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toMatchObject({ code: 'RUN_IF_FAILED', message: 'run_if gave a value that is not true or false: "billing"' });
  });
});
