import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { setProviderKey } from '../../src/commands/organizationCommands.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { anthropicRefusal } from '../support/anthropicRequestRules.ts';
import { startScriptedAnthropicServer } from '../support/scriptedAnthropicServer.ts';
import { startScriptedAzureServer } from '../support/scriptedAzureServer.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { runCli } from '../support/runProcess.ts';

const gradeSchema = { type: 'object', properties: { grade: { type: 'integer' } }, required: ['grade'], additionalProperties: false };
const lookup = { type: 'function', function: { name: 'lookup', description: 'Finds a fact', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };

const flows = {
  // Two providers in one flow, routed by the model's name (bare and `provider:model`).
  mixed: [
    { block: { name: 'draft', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: 'Draft: {{message}}' } },
    { block: { name: 'polish', processor_type: 'llm', model: 'claude-sonnet-5-5', prompt: 'Polish: {{previous_output}}', processor_config: { system_prompt: 'You edit.', stop: 'END' } } },
    { block: { name: 'grade', processor_type: 'llm', model: 'anthropic:claude-haiku-4-5', prompt: 'Grade: {{previous_output}}', output_schema: gradeSchema, processor_config: { max_tokens: 300 } } },
  ],
  // Three providers: OpenAI, Anthropic and an Azure OpenAI deployment, one block each.
  three: [
    { block: { name: 'draft', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: 'Draft: {{message}}' } },
    { block: { name: 'polish', processor_type: 'llm', model: 'anthropic:claude-haiku-4-5', prompt: 'Polish: {{previous_output}}' } },
    { block: { name: 'grade', processor_type: 'llm', model: 'azure:prod-grader', prompt: 'Grade: {{previous_output}}', output_schema: gradeSchema, processor_config: { temperature: 0, max_tokens: 100, tools_enabled: true } } },
  ],
  'azure-agent': [{ block: { name: 'agent', processor_type: 'llm', model: 'azure:prod-agent', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 2 } } }],
  // Claude first; when Anthropic is down, OpenAI's model answers instead.
  resilient: [{ block: { name: 'answer', processor_type: 'llm', model: 'claude-sonnet-5-5', prompt: '{{message}}', processor_config: { fallback_models: ['gpt-4.1-mini'], max_tokens: 200 } } }],
  // No model: the service's default (here a Gemini model, with no Google account) is known only when it runs.
  unrouted: [{ block: { name: 'unrouted', processor_type: 'llm', prompt: '{{message}}' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', model: 'claude-sonnet-5-5', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 3 } } }],
};

describe('models routed per block to OpenAI, Anthropic (its own SDK, API version 2026-10-21) and Azure OpenAI', () => {
  let service: SeededService;
  let claude: ScriptedModelServer;
  let azure: ScriptedModelServer;

  beforeAll(async () => {
    claude = await startScriptedAnthropicServer();
    azure = await startScriptedAzureServer();
    service = await startSeededService('model_providers', flows, { ANTHROPIC_BASE_URL: claude.baseUrl, ANTHROPIC_API_KEY: 'sk-ant-test', AZURE_OPENAI_ENDPOINT: azure.baseUrl, AZURE_OPENAI_API_KEY: 'az-key', SEQFLOW_LLM_MAX_RETRIES: '0', SEQFLOW_DEFAULT_MODEL: 'gemini-3.5-flash' });
  });
  afterAll(async () => {
    await service?.close();
    await claude?.close();
    await azure?.close();
  });

  it('runs a flow whose three blocks use three providers, each at its own address with its own credentials and argument names', async () => {
    claude.script({ content: 'Polished.' });
    azure.script({ content: { grade: 7 } });
    const run = await service.execute('three', { message: 'an essay' });
    expect(run.body).toMatchObject({ status: 'completed', result: { grade: 7 } });
    const sent = azure.requests.at(-1)!;
    expect(sent.url).toBe('/openai/deployments/prod-grader/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('az-key');
    expect(sent.body).toEqual({
      model: 'prod-grader',
      temperature: 0,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Grade: Polished.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'grade', strict: true, schema: gradeSchema } },
    });
    expect(claude.requests.at(-1)!.body).toMatchObject({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Polish: ok' }] });

    // The trace shows each block's provider, model, tokens and cost (10 input and 5 output tokens each, at the catalog's prices).
    const trace = await runTrace(service.t.runtime.eventStore, {}, String(run.body.executionId));
    expect(trace.steps.map((s) => ({ name: s.name, provider: s.provider, model: s.model, usage: s.usage, costUsd: s.costUsd }))).toEqual([
      { name: 'draft', provider: 'openai', model: 'gpt-4.1-mini', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, costUsd: 0.000012 },
      { name: 'polish', provider: 'anthropic', model: 'anthropic:claude-haiku-4-5', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, costUsd: 0.000035 },
      // An Azure deployment's name says nothing of its model: no price, no cost (SEQFLOW_MODEL_CATALOG can give one).
      { name: 'grade', provider: 'azure', model: 'azure:prod-grader', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, costUsd: null },
    ]);
    expect(trace.costUsd).toBe(0.000047);
    // The charge events carry the same cost: what a later price change cannot rewrite.
    const charges = (await service.t.runtime.eventStore.readStream(`execution-${String(run.body.executionId)}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => (e.data as { costUsd?: number | null }).costUsd);
    expect(charges).toEqual([0.000012, 0.000035, null]);
  });

  it('sums what the organization used by model, flow and day with `seqflow org usage`, the cost as each call recorded it', async () => {
    // Right after the run above: its three charges are all the organization has used.
    const usage = async (...args: string[]) => {
      const result = await runCli(['org', 'usage', '--org', 'acme', ...args], { DATABASE_URL: service.t.database.url, SEQFLOW_MASTER_KEY: service.t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' });
      return { code: result.code, stderr: result.stderr, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : undefined };
    };
    const byModel = await usage('--by', 'model');
    expect(byModel.json).toMatchObject({
      by: 'model',
      since: null,
      rows: [
        { model: 'anthropic:claude-haiku-4-5', calls: 1, tokens: 15, costUsd: 0.000035, unpricedTokens: 0 },
        { model: 'gpt-4.1-mini', calls: 1, tokens: 15, costUsd: 0.000012, unpricedTokens: 0 },
        // No price for an Azure deployment: its tokens are counted, and said to be outside the cost.
        { model: 'azure:prod-grader', calls: 1, tokens: 15, costUsd: 0, unpricedTokens: 15 },
      ],
      total: { calls: 3, tokens: 45, costUsd: 0.000047, unpricedTokens: 15 },
    });
    const byFlow = await usage('--by', 'flow', '--since', '2026-01-01');
    expect(byFlow.json).toMatchObject({ since: '2026-01-01T00:00:00.000Z', rows: [{ flow: 'web/three', calls: 3, tokens: 45, costUsd: 0.000047, unpricedTokens: 15 }] });
    const later = await usage('--by', 'day', '--since', '2999-01-01T00:00:00Z');
    expect(later.json).toMatchObject({ rows: [], total: { calls: 0, tokens: 0, costUsd: 0, unpricedTokens: 0 } });
    const unreadable = await usage('--since', 'last tuesday');
    expect([unreadable.code, unreadable.stderr]).toEqual([1, expect.stringContaining("'last tuesday' is not a time in ISO 8601")]);
  });

  it('pauses and resumes a tool call on an Azure deployment, sending only what Azure takes', async () => {
    azure.script({ toolCalls: [{ id: 'call_az', name: 'lookup', arguments: '{"q":"x"}' }] }, { content: 'done' });
    const paused = await service.execute('azure-agent', { message: 'look it up', tools: [lookup] });
    const body = paused.body as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'tool_calls_required', toolCalls: [{ id: 'call_az' }] });
    const messages = [...(body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'call_az', content: 'found' }];
    const resumed = await service.execute('azure-agent', { executionId: body.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: messages, tools: [lookup] });
    expect(resumed.body).toMatchObject({ status: 'completed', result: { text: 'done' } });
    expect(Object.keys(azure.requests.at(-1)!.body).sort()).toEqual(['messages', 'model', 'tool_choice', 'tools']);
  });

  it('falls back to the next model when the provider is down, recording which model answered and which did not', async () => {
    claude.script({ status: 529 });
    const before = service.model.requests.length;
    const run = await service.execute('resilient', { message: 'hello' });
    expect(run.body).toMatchObject({ status: 'completed', result: { text: 'ok' } });
    // The fallback got the block's settings under its own names.
    expect(service.model.requests.slice(before).map((r) => r.body)).toEqual([{ model: 'gpt-4.1-mini', max_tokens: 200, messages: [{ role: 'user', content: 'hello' }] }]);
    const trace = await runTrace(service.t.runtime.eventStore, {}, String(run.body.executionId));
    expect(trace.steps[0]).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini', fallbacks: [{ model: 'claude-sonnet-5-5', code: 'PROVIDER_ERROR', message: expect.stringContaining('HTTP 529') }] });
    // The waterfall has both requests: Claude's, failed, then the fallback's.
    expect((trace.steps[0]!.modelCalls as { outcome: string }[]).map((c) => c.outcome)).toEqual(['failed', 'answered']);
    // Charged once, for the call that answered.
    const charges = (await service.t.runtime.eventStore.readStream(`execution-${String(run.body.executionId)}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data);
    expect(charges).toEqual([expect.objectContaining({ model: 'gpt-4.1-mini', tokens: 15 })]);
  });

  it('fails a block whose provider (Anthropic, Azure) answers 200 with a page that is not its API\'s: PROVIDER_ERROR, saying so, no internal error text (issue 60 point 6)', async () => {
    claude.script({ page: '<html>captive portal</html>' });
    const run = await service.execute('three', { message: 'an essay' });
    expect(run.body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringMatching(/^the model provider's answer (is not a chat completion|could not be read)/) });
    expect(JSON.stringify(run.body)).not.toMatch(/Cannot read|undefined|TypeError|\(reading/);
    claude.script({ content: 'Polished.' });
    azure.script({ page: '<html>captive portal</html>' });
    const second = await service.execute('three', { message: 'an essay' });
    expect(second.body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringMatching(/^the model provider's answer (is not a chat completion|could not be read)/) });
    claude.reset();
    azure.reset();
  });

  it('does not fall back from a request the provider refused: that is the block\'s failure', async () => {
    claude.script({ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } } });
    const before = service.model.requests.length;
    const run = await service.execute('resilient', { message: 'hello' });
    expect(run.body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringContaining('prompt is too long') });
    expect(service.model.requests.length).toBe(before);
  });

  it('refuses to publish a fallback model that cannot take the block\'s settings', async () => {
    const flow = [{ block: { name: 'warm', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: '{{message}}', processor_config: { temperature: 0.5, fallback_models: ['claude-haiku-4-5'] } } }];
    await expect(importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'warm-fallback', name: 'warm', steps: flow }, publish: true }, testPrincipal)).rejects.toMatchObject({
      code: 'FLOW_INVALID',
      message: expect.stringContaining("steps[0].block (block 'warm').processor_config.fallback_models (claude-haiku-4-5): temperature: claude-haiku-4-5 (Anthropic, API version 2026-10-21) takes no temperature: remove it"),
    });
  });

  it('refuses to publish a model (or a fallback) whose provider this service has no account with, naming the settings to set', async () => {
    const flow = [{ block: { name: 'local', processor_type: 'llm', model: 'compatible:llama3:8b', prompt: '{{message}}', processor_config: { fallback_models: ['gemini-3.5-flash', 'gpt-4.1-mini'] } } }];
    const publishing = importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'local', name: 'local', steps: flow }, publish: true }, testPrincipal);
    await expect(publishing).rejects.toMatchObject({ code: 'FLOW_INVALID', extra: { problems: [
      "steps[0].block (block 'local').model: compatible:llama3:8b goes to the provider compatible, which this service has no account with: set SEQFLOW_COMPATIBLE_BASE_URL, SEQFLOW_COMPATIBLE_API_KEY, or choose a model of a configured provider",
      "steps[0].block (block 'local').processor_config.fallback_models (gemini-3.5-flash): gemini-3.5-flash goes to the provider google, which this service has no account with: set GEMINI_API_KEY, GEMINI_BASE_URL, or choose a model of a configured provider",
    ] } });
  });

  it('fails a block without a model whose default routes to a provider with no account: PROVIDER_NOT_CONFIGURED, naming the settings', async () => {
    const run = await service.execute('unrouted', { message: 'hi' });
    expect(run.body.detail).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED', message: expect.stringContaining('GEMINI_API_KEY, GEMINI_BASE_URL') });
  });

  it('runs a flow whose blocks use OpenAI and Anthropic, each sent only what its API takes, and a caller cannot tell', async () => {
    claude.script({ content: 'Polished.' }, { content: { grade: 9 } });
    const before = service.model.requests.length;
    const run = await service.execute('mixed', { message: 'an essay', attachments: [{ kind: 'url', url: 'https://93.184.216.34/page.png', mime_type: 'image/png' }] });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', result: { grade: 9 } });
    expect(service.model.requests.length - before).toBe(1);
    expect(service.model.requests.at(-1)!.body.model).toBe('gpt-4.1-mini');

    const [polish, grade] = claude.requests.slice(-2).map((r) => r);
    // The SDK's own headers: the current API version, the key as a bearer token.
    expect(polish!.headers).toMatchObject({ 'anthropic-version': '2026-10-21', authorization: 'Bearer sk-ant-test' });
    expect(polish!.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 4096,
      stop_sequences: ['END'],
      system: 'You edit.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Polish: ok' }, { type: 'image', source: { type: 'url', url: 'https://93.184.216.34/page.png' } }] }],
    });
    // The provider prefix is Seqflow's: the model goes out as Anthropic names it, the schema as its structured output.
    expect(grade!.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 300, output_config: { format: { type: 'json_schema', schema: gradeSchema } } });
  });

  it('pauses for a tool Claude asks for in the spec\'s OpenAI format, and resumes with the results as Anthropic pairs them', async () => {
    claude.script({ toolCalls: [{ id: 'toolu_01', name: 'lookup', arguments: '{"q":"tides"}' }] }, { content: 'High tide at noon.' });
    const paused = await service.execute('agent', { message: 'When is high tide?', tools: [lookup] });
    expect(paused.status).toBe(200);
    const body = paused.body as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'tool_calls_required', pausedAtStep: 'agent', toolCalls: [{ id: 'toolu_01', function: { name: 'lookup', arguments: '{"q":"tides"}' } }] });
    expect(claude.requests.at(-1)!.body).toMatchObject({ tools: [{ name: 'lookup', description: 'Finds a fact', input_schema: lookup.function.parameters }], tool_choice: { type: 'auto' } });

    const messages = [...(body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'toolu_01', content: '{"high":"12:00"}' }];
    const resumed = await service.execute('agent', { executionId: body.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: messages, tools: [lookup] });
    expect(resumed.body).toMatchObject({ status: 'completed', result: { text: 'High tide at noon.' } });
    // The tool call and its result went back as one tool_use/tool_result pair (the server refuses any other).
    expect(claude.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'When is high tide?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'tides' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"high":"12:00"}' }] },
    ]);
  });

  it('refuses to publish sampling settings API version 2026-10-21 does not take, naming the block and the fix', async () => {
    const flow = [{ block: { name: 'warm', processor_type: 'llm', model: 'claude-sonnet-5-5', prompt: '{{message}}', processor_config: { temperature: 0.7, top_p: 0.9 } } }];
    await expect(importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'warm', name: 'warm', steps: flow }, publish: true }, testPrincipal)).rejects.toMatchObject({
      code: 'FLOW_INVALID',
      message: expect.stringMatching(/steps\[0\]\.block \(block 'warm'\)\.processor_config\.temperature: claude-sonnet-5-5 \(Anthropic, API version 2026-10-21\) takes no temperature: remove it\n.*top_p/),
    });
  });

  it("has a scripted server that refuses what Anthropic's API refuses", () => {
    const headers = { 'anthropic-version': '2026-10-21', authorization: 'Bearer k' };
    const base = { model: 'claude-sonnet-5-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    expect(anthropicRefusal(headers, base)).toBeUndefined();
    expect(anthropicRefusal(headers, { ...base, temperature: 1 })?.message).toBe('temperature: Extra inputs are not permitted');
    expect(anthropicRefusal(headers, { ...base, tools_enabled: true })?.message).toBe('tools_enabled: Extra inputs are not permitted');
    expect(anthropicRefusal(headers, { model: 'claude-sonnet-5-5', messages: base.messages })?.message).toBe('max_tokens: Field required');
    expect(anthropicRefusal(headers, { ...base, messages: [{ role: 'system', content: 'x' }] })?.message).toMatch(/messages\.0\.role/);
    expect(anthropicRefusal({ authorization: 'Bearer k' }, base)?.message).toMatch(/anthropic-version/);
    expect(anthropicRefusal({ 'anthropic-version': '2026-10-21' }, base)?.status).toBe(401);
    const asked = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] };
    expect(anthropicRefusal(headers, { ...base, messages: [base.messages[0], asked] })?.message).toMatch(/without `tool_result` blocks immediately after: t1/);
    expect(anthropicRefusal(headers, { ...base, messages: [base.messages[0], asked, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }, { type: 'tool_result', tool_use_id: 't2', content: 'x' }] }] })?.message).toMatch(/unexpected `tool_use_id`/);
  });

  // Last: the organization's own keys stay set for the rest of this service.
  it("uses an organization's own key with a provider, and refuses nothing at publish that its key makes reachable", async () => {
    const setKey = (provider: string, key: string, baseUrl: string | null = null) => setProviderKey(service.t.runtime.commands, { organizationSlug: 'acme', key, provider, baseUrl }, service.t.runtime.masterKey, testPrincipal);
    await setKey('anthropic', 'sk-ant-acme');
    claude.script({ content: 'with our own key' });
    const run = await service.execute('resilient', { message: 'hi' });
    expect(run.body).toMatchObject({ status: 'completed', result: { text: 'with our own key' } });
    expect(claude.requests.at(-1)!.headers.authorization).toBe('Bearer sk-ant-acme');

    // Anthropic refuses the organization's key: the organization's problem, and said so.
    claude.script({ status: 401, errorBody: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const rejected = await service.execute('agent', { message: 'hi' });
    expect(rejected.body.detail).toMatchObject({ code: 'BYOK_REJECTED' });

    // No compatible server is configured for the service; the organization's own key and base URL make one reachable.
    const flow = [{ block: { name: 'local', processor_type: 'llm', model: 'compatible:llama3:8b', prompt: '{{message}}' } }];
    await setKey('compatible', 'ollama-acme', service.model.baseUrl);
    await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'local-own', name: 'local', steps: flow }, production: true }, testPrincipal);
    await service.t.runtime.projections.catchUp();
    const local = await service.execute('local-own', { message: 'hello llama' });
    expect(local.body).toMatchObject({ status: 'completed' });
    expect(service.model.requests.at(-1)!).toMatchObject({ headers: { authorization: 'Bearer ollama-acme' }, body: { model: 'llama3:8b' } });
  });
});
