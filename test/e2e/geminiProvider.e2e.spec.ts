import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { geminiRefusal } from '../support/geminiRequestRules.ts';
import { startScriptedGeminiServer } from '../support/scriptedGeminiServer.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

const gradeSchema = { type: 'object', properties: { grade: { type: 'integer' } }, required: ['grade'], additionalProperties: false };
const lookup = { type: 'function', function: { name: 'lookup', description: 'Finds a fact', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };
const photo = { kind: 'url', url: 'https://93.184.216.34/page.png', mime_type: 'image/png' };

const flows = {
  grade: [{ block: { name: 'grade', processor_type: 'llm', model: 'gemini-3.5-flash', prompt: 'Grade: {{message}}', output_schema: gradeSchema, processor_config: { system_prompt: 'You grade.', temperature: 0.2, top_p: 0.9, max_tokens: 50, stop: 'END', seed: 7, tools_enabled: false } } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', model: 'google:gemini-3.1-pro', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 3 } } }],
  // Gemini first; when Google is down, OpenAI's model answers instead.
  resilient: [{ block: { name: 'answer', processor_type: 'llm', model: 'gemini-2.5-flash', prompt: '{{message}}', processor_config: { fallback_models: ['gpt-4.1-mini'] } } }],
  // A tool call asked on Gemini, its result read by OpenAI (Google down at the resume): Gemini's signatures do not reach OpenAI.
  handoff: [{ block: { name: 'agent', processor_type: 'llm', model: 'gemini-3.5-flash', prompt: '{{message}}', processor_config: { tools_enabled: true, fallback_models: ['gpt-4.1-mini'] } } }],
};

describe('models routed to Google Gemini (its own SDK, generateContent v1beta)', () => {
  let service: SeededService;
  let gemini: ScriptedModelServer;

  beforeAll(async () => {
    gemini = await startScriptedGeminiServer();
    service = await startSeededService('gemini_provider', flows, { GEMINI_BASE_URL: gemini.baseUrl, GEMINI_API_KEY: 'gm-key', SEQFLOW_LLM_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await service?.close();
    await gemini?.close();
  });

  it("sends a block's settings under Gemini's names, its image with its type and its output schema, and records the model's tokens and cost", async () => {
    gemini.script({ content: { grade: 8 }, usage: { prompt_tokens: 1000, completion_tokens: 100 } });
    const run = await service.execute('grade', { message: 'an essay', attachments: [photo] });
    expect(run.body).toMatchObject({ status: 'completed', result: { grade: 8 } });
    const sent = gemini.requests.at(-1)!;
    expect(sent.url).toBe('/v1beta/models/gemini-3.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gm-key');
    expect(sent.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Grade: an essay' }, { fileData: { fileUri: photo.url, mimeType: 'image/png' } }] }],
      systemInstruction: { parts: [{ text: 'You grade.' }] },
      generationConfig: { temperature: 0.2, topP: 0.9, maxOutputTokens: 50, stopSequences: ['END'], seed: 7, responseMimeType: 'application/json', responseJsonSchema: gradeSchema },
    });
    const trace = await runTrace(service.t.runtime.eventStore, {}, String(run.body.executionId));
    // 1,000 input tokens at $1.50 and 100 output tokens at $9.00 per million.
    expect(trace.steps[0]).toMatchObject({ provider: 'google', model: 'gemini-3.5-flash', usage: { promptTokens: 1000, completionTokens: 100 }, costUsd: 0.0024 });
  });

  it("pauses for a tool Gemini asks for in the spec's OpenAI format, and resumes with the call's signature and a named function response", async () => {
    gemini.script({ toolCalls: [{ id: 'fc_1', name: 'lookup', arguments: '{"q":"tides"}' }] }, { content: 'High tide at noon.' });
    const paused = await service.execute('agent', { message: 'When is high tide?', tools: [lookup] });
    const body = paused.body as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'tool_calls_required', pausedAtStep: 'agent', toolCalls: [{ id: 'fc_1', function: { name: 'lookup', arguments: '{"q":"tides"}' } }] });
    expect(gemini.requests.at(-1)!.body).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'lookup', description: 'Finds a fact', parametersJsonSchema: lookup.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });

    const messages = [...(body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'fc_1', content: '{"high":"12:00"}' }];
    const resumed = await service.execute('agent', { executionId: body.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: messages, tools: [lookup] });
    // A Gemini 3 model refuses the current turn's calls without their signature: the scripted server too.
    expect(resumed.body).toMatchObject({ status: 'completed', result: { text: 'High tide at noon.' } });
    expect((gemini.requests.at(-1)!.body as unknown as { contents: unknown[] }).contents).toEqual([
      { role: 'user', parts: [{ text: 'When is high tide?' }] },
      { role: 'model', parts: [{ functionCall: { id: 'fc_1', name: 'lookup', args: { q: 'tides' } }, thoughtSignature: Buffer.from('signature of fc_1').toString('base64') }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'lookup', response: { result: '{"high":"12:00"}' } } }] },
    ]);
  });

  it("keeps Gemini's signatures from a provider that would refuse them", async () => {
    gemini.script({ toolCalls: [{ id: 'fc_2', name: 'lookup', arguments: '{"q":"x"}' }] }, { status: 503 });
    const paused = (await service.execute('handoff', { message: 'look', tools: [lookup] })).body as Record<string, unknown>;
    expect(paused.toolCallMessages).toContainEqual(expect.objectContaining({ tool_calls: [expect.objectContaining({ id: 'fc_2', extra_content: { google: { thought_signature: expect.any(String) } } })] }));
    const messages = [...(paused.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'fc_2', content: 'x' }];
    const resumed = await service.execute('handoff', { executionId: paused.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: messages, tools: [lookup] });
    // OpenAI refuses a tool call with a field of its own schema lacks: the scripted server too.
    expect(resumed.body).toMatchObject({ status: 'completed', result: { text: 'ok' } });
    expect(service.model.requests.at(-1)!.body.messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'fc_2', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] });
  });

  it('falls back to the next model when Google is down, and not when Google refused the request', async () => {
    gemini.script({ status: 503 });
    const run = await service.execute('resilient', { message: 'hello' });
    expect(run.body).toMatchObject({ status: 'completed', result: { text: 'ok' } });
    const trace = await runTrace(service.t.runtime.eventStore, {}, String(run.body.executionId));
    expect(trace.steps[0]).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini', fallbacks: [{ model: 'gemini-2.5-flash', code: 'PROVIDER_ERROR', message: 'the model provider answered HTTP 503' }] });

    gemini.script({ status: 400, errorBody: { error: { code: 400, message: 'The input token count exceeds the maximum', status: 'INVALID_ARGUMENT' } } });
    const refused = await service.execute('resilient', { message: 'hello' });
    expect(refused.body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: 'the model provider answered HTTP 400: The input token count exceeds the maximum' });
  });

  it('refuses an image type Gemini cannot read before any work, and reasoning_effort at publish', async () => {
    const before = gemini.requests.length;
    const run = await service.execute('grade', { message: 'x', attachments: [{ ...photo, url: 'https://93.184.216.34/a.gif', mime_type: 'image/gif' }] });
    expect(run.body.detail).toMatchObject({ code: 'MODEL_MIME_INCOMPATIBLE' });
    expect(gemini.requests.length).toBe(before);
    const flow = [{ block: { name: 'think', processor_type: 'llm', model: 'gemini-3.1-pro', prompt: '{{message}}', processor_config: { reasoning_effort: 'high' } } }];
    await expect(importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'think', name: 'think', steps: flow }, publish: true }, testPrincipal)).rejects.toMatchObject({
      code: 'FLOW_INVALID',
      message: expect.stringContaining('reasoning_effort: gemini-3.1-pro (Google Gemini) takes no reasoning_effort: remove it'),
    });
  });

  it("has a scripted server that refuses what Gemini's API refuses", () => {
    const headers = { 'x-goog-api-key': 'k' };
    const base = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    expect(geminiRefusal('gemini-3.5-flash', headers, base)).toBeUndefined();
    expect(geminiRefusal('gemini-3.5-flash', {}, base)?.status).toBe(403);
    expect(geminiRefusal('gemini-3.5-flash', headers, { ...base, tools_enabled: true })?.message).toBe('Invalid JSON payload received. Unknown name "tools_enabled": Cannot find field.');
    expect(geminiRefusal('gemini-3.5-flash', headers, { ...base, generationConfig: { max_tokens: 5 } })?.message).toMatch(/Unknown name "max_tokens" at 'generation_config'/);
    expect(geminiRefusal('gemini-3.5-flash', headers, { contents: [] })?.message).toMatch(/contents is not specified/);
    expect(geminiRefusal('gemini-3.5-flash', headers, { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] })?.message).toBe('Please use a valid role: user, model.');
    expect(geminiRefusal('gemini-3.5-flash', headers, { contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://x/a.gif', mimeType: 'image/gif' } }] }] })?.message).toBe('Unsupported MIME type: image/gif');
    expect(geminiRefusal('gemini-3.5-flash', headers, { ...base, generationConfig: { responseJsonSchema: {} } })?.message).toMatch(/response_mime_type/);
    const call = { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] };
    const answer = { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'x' } } }] };
    expect(geminiRefusal('gemini-3.5-flash', headers, { contents: [base.contents[0], call, answer] })?.message).toMatch(/missing a thought_signature/);
    expect(geminiRefusal('gemini-2.5-flash', headers, { contents: [base.contents[0], call, answer] })).toBeUndefined();
    expect(geminiRefusal('gemini-2.5-flash', headers, { contents: [base.contents[0], call, { role: 'user', parts: [answer.parts[0], answer.parts[0]] }] })?.message).toMatch(/number of function response parts/);
    expect(geminiRefusal('gemini-2.5-flash', headers, { contents: [call, answer] })?.message).toMatch(/function call turn comes immediately after a user turn/);
  });
});
