import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { stepTrace } from '../../src/testing/runTrace.ts';
import { refusalOf } from '../support/openaiRequestRules.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { eventsApart } from '../support/runEventsApart.ts';

const flows = {
  styled: [
    {
      block: {
        name: 'answer',
        processor_type: 'llm',
        model: 'gpt-4o-mini',
        prompt: 'Answer: {{message}}',
        processor_config: { system_prompt: 'You speak like {{parameters.persona}}.', temperature: 0.2, top_p: 0.9, max_tokens: 50, seed: 7, stop: ['END'] },
      },
    },
  ],
  thinker: [{ block: { name: 'think', processor_type: 'llm', model: 'o4-mini', prompt: '{{message}}', processor_config: { max_tokens: 500, reasoning_effort: 'low' } } }],
  // Every Seqflow setting of an llm block beside model settings: only the model settings are sent.
  agent: [
    {
      block: {
        name: 'agent',
        processor_type: 'llm',
        model: 'gpt-4.1-mini',
        prompt: '{{message}}',
        processor_config: { tools_enabled: true, max_tool_iterations: 3, receive_attachments: false, temperature: 0.3, max_tokens: 200 },
      },
    },
  ],
  // No model: it runs on the service's default (gpt-4o-mini), known only when it runs.
  defaulted: [{ block: { name: 'think', processor_type: 'llm', prompt: '{{message}}', processor_config: { reasoning_effort: 'high' } } }],
};

describe('the llm settings users expect: system prompt, sampling, length, seed, stop, reasoning effort', () => {
  let service: SeededService;
  let model: ScriptedModelServer;
  let t: TestRuntime;

  beforeAll(async () => {
    service = await startSeededService('llm_settings', flows);
    ({ model, t } = service);
  });
  afterAll(async () => {
    await service?.close();
  });

  const execute = (flow: string, body: Record<string, unknown>) => service.execute(flow, body);

  it('sends the rendered system prompt first and the settings as the chat model takes them, and records both in the step', async () => {
    const before = model.requests.length;
    const run = await execute('styled', { message: 'Where is the treasure?', parameters: { persona: 'a pirate' } });
    expect(run.status).toBe(200);
    const sent = model.requests[before]!.body as Record<string, unknown>;
    expect(sent.messages).toEqual([
      { role: 'system', content: 'You speak like a pirate.' },
      { role: 'user', content: 'Answer: Where is the treasure?' },
    ]);
    expect(sent).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, top_p: 0.9, max_tokens: 50, seed: 7, stop: ['END'] });
    expect(sent).not.toHaveProperty('max_completion_tokens');

    const events = eventsApart(await t.runtime.eventStore.readStream(`execution-${String(run.body.executionId)}`));
    const started = events.find((event) => event.type === 'ExecutionStepStarted')!;
    expect((started.data as { input: unknown }).input).toMatchObject({ systemPrompt: 'You speak like a pirate.', settings: { temperature: 0.2, top_p: 0.9, max_tokens: 50, seed: 7, stop: ['END'] } });
    // The step's trace (get_step_trace, the console) shows them.
    const trace = await stepTrace(t.runtime.eventStore, {}, String(run.body.executionId), String((started.data as { blockId: string }).blockId));
    expect(trace.executions[0]).toMatchObject({ prompt: 'Answer: Where is the treasure?', systemPrompt: 'You speak like a pirate.', settings: { temperature: 0.2, max_tokens: 50 } });
  });

  it('gives a reasoning model max_completion_tokens and reasoning_effort', async () => {
    const before = model.requests.length;
    expect((await execute('thinker', { message: 'Think.' })).status).toBe(200);
    const sent = model.requests[before]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'o4-mini', max_completion_tokens: 500, reasoning_effort: 'low' });
    expect(sent).not.toHaveProperty('max_tokens');
  });

  it('sends a tools flow only the arguments the API documents, never Seqflow\'s own settings, through a whole tool round trip', async () => {
    const before = model.requests.length;
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
    model.script({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] }, { content: 'Sunny.' });
    const image = { kind: 'url', url: 'https://93.184.216.34/cat.png', mime_type: 'image/png' };
    const pause = (await execute('agent', { message: 'Weather?', tools: [weather], attachments: [image] })) as { status: number; body: Record<string, unknown> };
    expect(pause.status).toBe(200);
    expect(pause.body).toMatchObject({ status: 'tool_calls_required', pausedAtStep: 'agent' });
    const messages = [...(pause.body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"clear"}' }];
    const done = await execute('agent', { executionId: pause.body.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: messages, tools: [weather] });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', result: { text: 'Sunny.' } });

    const sent = model.requests.slice(before).map((request) => request.body as Record<string, unknown>);
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'temperature', 'tool_choice', 'tools']);
      expect(body).toMatchObject({ temperature: 0.3, max_tokens: 200 });
    }
    // receive_attachments: false kept the image out of the request as well as out of the arguments.
    expect(sent[0]!.messages).toEqual([{ role: 'user', content: 'Weather?' }]);
  });

  it('refuses at publish what the block\'s model family does not take, naming the setting and the fix', async () => {
    const publish = (slug: string, block: Record<string, unknown>) =>
      importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps: [{ block: { name: 'b', processor_type: 'llm', prompt: 'x', ...block } }] }, production: true }, testPrincipal);
    await expect(publish('hot-o3', { model: 'o3', processor_config: { temperature: 0.5 } })).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('processor_config.temperature: o3 is a reasoning model') });
    await expect(publish('stopped-o3', { model: 'o3', processor_config: { stop: 'END' } })).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('processor_config.stop: o3 is a reasoning model') });
    await expect(publish('effort-4o', { model: 'gpt-4o', processor_config: { reasoning_effort: 'low' } })).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('reasoning_effort: gpt-4o is not a reasoning model') });
    await expect(publish('too-hot', { model: 'gpt-4o', processor_config: { temperature: 3 } })).rejects.toMatchObject({ code: 'FLOW_FILE_INVALID' });
    await expect(
      importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'code-temp', name: 'c', steps: [{ block: { name: 'c', processor_type: 'code', code: 'return {};', processor_config: { temperature: 1 } } }] }, production: true }, testPrincipal),
    ).rejects.toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('only llm blocks take model settings') });
  });

  it('fails a block on the default model that does not take its settings, before calling the model', async () => {
    const before = model.requests.length;
    const run = await execute('defaulted', { message: 'Think.' });
    expect(run.status).toBe(422);
    expect(run.body.detail).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('reasoning_effort: gpt-4o-mini is not a reasoning model') });
    expect(model.requests.length).toBe(before);
  });

  it('is refused by the scripted model server where OpenAI refuses it', () => {
    const messages = [{ role: 'user', content: 'x' }];
    expect(refusalOf({ model: 'o3', messages, temperature: 0.5 })).toMatch(/temperature/);
    expect(refusalOf({ model: 'o3', messages, max_tokens: 5 })).toMatch(/max_completion_tokens/);
    expect(refusalOf({ model: 'o3', messages, stop: ['x'] })).toMatch(/'stop' is not supported/);
    expect(refusalOf({ model: 'gpt-4o', messages, reasoning_effort: 'low' })).toMatch(/'reasoning_effort' is not supported/);
    expect(refusalOf({ model: 'gpt-4o', messages, temperature: 2.5 })).toMatch(/Expected a value <= 2/);
    expect(refusalOf({ model: 'gpt-4o', messages, stop: ['a', 'b', 'c', 'd', 'e'] })).toMatch(/maximum length 4/);
    expect(refusalOf({ model: 'gpt-4o', messages, tools_enabled: true })).toBe('Unrecognized request argument supplied: tools_enabled');
    expect(refusalOf({ model: 'gpt-4o', messages, max_tool_iterations: 3 })).toBe('Unrecognized request argument supplied: max_tool_iterations');
    expect(refusalOf({ model: 'gpt-4o', messages, temperature: 0.2, top_p: 0.9, max_tokens: 50, seed: 7, stop: ['END'] })).toBeUndefined();
    expect(refusalOf({ model: 'o4-mini', messages, max_completion_tokens: 500, reasoning_effort: 'low' })).toBeUndefined();
  });
});
