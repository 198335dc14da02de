import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import type { RecordedRequest } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { eventsApart } from '../support/runEventsApart.ts';

const routeSchema = { type: 'object', properties: { queue: { type: 'string' }, urgent: { type: 'boolean' } }, required: ['queue', 'urgent'], additionalProperties: false };
const flows: Record<string, unknown[]> = {
  triage: [
    { block: { name: 'route', processor_type: 'llm', prompt: 'Classify: {{input.message}}', output_schema: routeSchema } },
    { block: { name: 'draft', processor_type: 'llm', prompt: 'Draft a reply for {{input.parameters.customer.name}}: {{message}}' } },
    { loop: { over: 'parameters.items', block: { name: 'each', processor_type: 'code', code: 'return input.previous_output * 10;' } } },
    { block: { name: 'tag', processor_type: 'code', code: '// input.steps.draft is not read here\nreturn { queue: input.steps.route.queue, urgent: input.steps["route"].urgent, items: input.steps.each };' } },
    { block: { name: 'notify', processor_type: 'llm', prompt: 'Note for {{steps.route.output.queue}} ({{steps.each.output}}): {{steps.draft.output}}' } },
  ],
  agent: [
    { block: { name: 'route', processor_type: 'llm', prompt: 'Classify: {{message}}', output_schema: routeSchema } },
    { block: { name: 'helper', processor_type: 'llm', prompt: 'Help: {{message}}', processor_config: { tools_enabled: true } } },
    { block: { name: 'after', processor_type: 'llm', prompt: 'Queue {{steps.route.output.queue}}, helper said {{steps.helper.output}}' } },
  ],
};

const promptOf = (request: RecordedRequest) => String(request.body.messages.at(-1)?.content);
/** The route block answers its schema; the helper calls a tool once; every other block answers with text. */
const respond = (request: RecordedRequest) => {
  const prompt = promptOf(request);
  if (prompt.startsWith('Classify')) return { content: JSON.stringify({ queue: 'billing', urgent: true }) };
  if (prompt.startsWith('Help') && !request.body.messages.some((m) => m.role === 'tool')) return { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }] };
  if (prompt.startsWith('Draft')) return { content: 'Dear Ada, we are on it.' };
  return { content: 'ok' };
};

describe('blocks read earlier blocks by name', () => {
  let s: SeededService;
  beforeAll(async () => {
    s = await startSeededService('named_refs', flows);
    s.model.respond = respond;
  });
  afterAll(async () => s?.close());

  const stepStarted = async (executionId: string, blockName: string) =>
    eventsApart(await s.t.runtime.eventStore.readStream(`execution-${executionId}`)).find((e) => e.type === 'ExecutionStepStarted' && (e.data as { blockName: string }).blockName === blockName)!.data as { input: unknown; missingPlaceholders: string[] };

  it('renders steps.<name>.output and input.* in prompts, and hands a code block the outputs it names, a loop as its results in order', async () => {
    const answer = await s.execute('triage', { message: 'I was charged twice', parameters: { customer: { name: 'Ada' }, items: [1, 2, 3] } });
    expect(answer.status).toBe(200);
    const executionId = answer.body.executionId!;
    const prompts = s.model.requests.map(promptOf);
    expect(prompts).toContain('Classify: I was charged twice');
    expect(prompts).toContain('Draft a reply for Ada: I was charged twice');
    expect(prompts).toContain('Note for billing ([10,20,30]): Dear Ada, we are on it.');
    // What the code could read is what was recorded: the blocks it names, not the one in its comment.
    const tag = await stepStarted(executionId, 'tag');
    expect(tag.input).toMatchObject({ steps: { route: { queue: 'billing', urgent: true }, each: [10, 20, 30] } });
    expect(Object.keys((tag.input as { steps: object }).steps).sort()).toEqual(['each', 'route']);
    expect((await stepStarted(executionId, 'notify')).missingPlaceholders).toEqual([]);
  });

  it('a resumed run reads the blocks completed before its pause', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const pause = (await s.execute('agent', { message: 'refund', tools })).body as unknown as { executionId: string; pausedAtStep: string; iterationsUsed: number; toolCallMessages: unknown[]; accumulatedOutputs: Record<string, unknown> };
    expect(pause.accumulatedOutputs).toEqual({ route: { queue: 'billing', urgent: true } });
    const done = await s.execute('agent', { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'call_1', content: 'found' }], tools });
    expect(done.status).toBe(200);
    expect(s.model.requests.map(promptOf)).toContain('Queue billing, helper said ok');
  });

  it.each([
    ['a later block', [{ block: { name: 'first', processor_type: 'llm', prompt: '{{steps.second.output}}' } }, { block: { name: 'second', processor_type: 'passthrough' } }], "steps[0].block (block 'first'): the reference steps.second cannot be read: that block runs later (steps[1])"],
    ['a parallel sibling', [{ parallel: [{ name: 'a', processor_type: 'passthrough' }, { name: 'b', processor_type: 'code', code: 'return input.steps.a;' }] }], "steps[0].parallel[1] (block 'b'): the reference steps.a cannot be read: that block runs beside it, in the same parallel step"],
    ['no block', [{ block: { name: 'only', processor_type: 'llm', prompt: '{{steps.ghost.output.x}}' } }], "steps[0].block (block 'only'): the reference steps.ghost cannot be read: no block has that name"],
  ])('refuses to publish a reference to %s (FLOW_INVALID, naming the block and the reference)', async (_what, steps, problem) => {
    const publishing = importFlow(s.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'bad-refs', name: 'bad', steps: steps as never }, production: true }, testPrincipal);
    await expect(publishing).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining(problem) });
  });
});
