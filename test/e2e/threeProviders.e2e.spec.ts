import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTrace } from '../../src/testing/runTrace.ts';
import { startScriptedAnthropicServer } from '../support/scriptedAnthropicServer.ts';
import { startScriptedGeminiServer } from '../support/scriptedGeminiServer.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';

const verdict = (field: string) => ({ type: 'object', properties: { [field]: { type: 'string' } }, required: [field], additionalProperties: false });
const lookup = { type: 'function', function: { name: 'lookup', description: 'Finds a fact', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false } } };
const photo = { kind: 'url', url: 'https://93.184.216.34/receipt.png', mime_type: 'image/png' };
const agent = (name: string, model: string, field: string, prompt: string) => ({ block: { name, processor_type: 'llm', model, prompt, output_schema: verdict(field), processor_config: { tools_enabled: true } } });

const flows = {
  // Three providers, each block with an output schema, the caller's image and a tool round trip.
  everything: [
    agent('read', 'gpt-4.1-mini', 'merchant', 'Who issued this receipt? {{message}}'),
    agent('check', 'claude-haiku-4-5', 'risk', 'Is {{previous_output.merchant}} risky?'),
    agent('decide', 'gemini-3.5-flash', 'decision', 'Decide on {{previous_output.risk}}'),
  ],
};

describe('a flow whose three llm blocks use OpenAI, Anthropic and Gemini, each with an output schema, an image and a tool round trip', () => {
  let service: SeededService;
  let claude: ScriptedModelServer;
  let gemini: ScriptedModelServer;

  beforeAll(async () => {
    claude = await startScriptedAnthropicServer();
    gemini = await startScriptedGeminiServer();
    service = await startSeededService('three_providers', flows, { ANTHROPIC_BASE_URL: claude.baseUrl, ANTHROPIC_API_KEY: 'a', GEMINI_BASE_URL: gemini.baseUrl, GEMINI_API_KEY: 'g', SEQFLOW_LLM_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await service?.close();
    await claude?.close();
    await gemini?.close();
  });

  it('completes, each pause and resume in the spec\'s format whoever answered, and the trace shows each block\'s provider, model, tokens and cost', async () => {
    service.model.script({ toolCalls: [{ id: 'call_o', name: 'lookup', arguments: '{"q":"receipt"}' }], usage: { prompt_tokens: 100, completion_tokens: 10 } }, { content: { merchant: 'Acme Hardware' }, usage: { prompt_tokens: 120, completion_tokens: 8 } });
    claude.script({ toolCalls: [{ id: 'toolu_a', name: 'lookup', arguments: '{"q":"Acme Hardware"}' }], usage: { prompt_tokens: 200, completion_tokens: 20 } }, { content: { risk: 'low' }, usage: { prompt_tokens: 220, completion_tokens: 6 } });
    gemini.script({ toolCalls: [{ id: 'fc_g', name: 'lookup', arguments: '{"q":"low"}' }], usage: { prompt_tokens: 300, completion_tokens: 30 } }, { content: { decision: 'approve' }, usage: { prompt_tokens: 330, completion_tokens: 4 } });

    type Answer = { status: number; body: { status?: string; executionId?: string } & Record<string, unknown> };
    let answer: Answer = await service.execute('everything', { message: 'see the photo', attachments: [photo], tools: [lookup] });
    const pausedAt: string[] = [];
    for (let round = 0; answer.body.status === 'tool_calls_required' && round < 5; round++) {
      const pause = answer.body as { executionId: string; pausedAtStep: string; iterationsUsed: number; toolCallMessages: unknown[]; toolCalls: { id: string; function: { name: string; arguments: string } }[] };
      pausedAt.push(`${pause.pausedAtStep}:${pause.toolCalls.map((c) => c.id).join()}`);
      const results = pause.toolCalls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: `found ${JSON.parse(c.function.arguments).q}` }));
      answer = await service.execute('everything', { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, ...results], tools: [lookup] });
    }
    expect(pausedAt).toEqual(['read:call_o', 'check:toolu_a', 'decide:fc_g']);
    expect(answer.body).toMatchObject({ status: 'completed', result: { decision: 'approve' } });

    // Each provider got the image in its own form, and the tool result paired as its API requires.
    const openaiLast = service.model.requests.at(-1)!.body;
    expect(openaiLast.messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text' }, { type: 'image_url', image_url: { url: photo.url } }] });
    expect(openaiLast.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    const claudeLast = claude.requests.at(-1)!.body as unknown as { messages: { content: { type: string }[] }[]; output_config: unknown };
    expect(claudeLast.messages.map((m) => m.content.map((b) => b.type))).toEqual([['text', 'image'], ['tool_use'], ['tool_result']]);
    expect(claudeLast.output_config).toEqual({ format: { type: 'json_schema', schema: verdict('risk') } });
    const geminiLast = gemini.requests.at(-1)!.body as unknown as { contents: { parts: Record<string, unknown>[] }[]; generationConfig: unknown };
    expect(geminiLast.contents.map((c) => c.parts.map((p) => Object.keys(p).filter((k) => k !== 'thoughtSignature')[0]))).toEqual([['text', 'fileData'], ['functionCall'], ['functionResponse']]);
    expect(geminiLast.generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: verdict('decision') });

    const trace = await runTrace(service.t.runtime.eventStore, {}, String(answer.body.executionId));
    expect(trace.steps.filter((s) => s.status === 'completed').map((s) => ({ name: s.name, provider: s.provider, model: s.model, usage: s.usage, costUsd: s.costUsd }))).toEqual([
      // gpt-4.1-mini at $0.40 and $1.60 per million: the resume's call (120 + 8 tokens); the paused call was charged with its pause.
      { name: 'read', provider: 'openai', model: 'gpt-4.1-mini', usage: { promptTokens: 120, completionTokens: 8, totalTokens: 128 }, costUsd: 0.000061 },
      // claude-haiku-4-5 at $1 and $5.
      { name: 'check', provider: 'anthropic', model: 'claude-haiku-4-5', usage: { promptTokens: 220, completionTokens: 6, totalTokens: 226 }, costUsd: 0.00025 },
      // gemini-3.5-flash at $1.50 and $9.
      { name: 'decide', provider: 'google', model: 'gemini-3.5-flash', usage: { promptTokens: 330, completionTokens: 4, totalTokens: 334 }, costUsd: 0.000531 },
    ]);
    // Every call was charged, pauses included: what the organization paid in tokens and dollars.
    const charges = (await service.t.runtime.eventStore.readStream(`execution-${String(answer.body.executionId)}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data as { model: string; tokens: number; costUsd: number });
    expect(charges.map((c) => [c.model, c.tokens, c.costUsd])).toEqual([
      ['gpt-4.1-mini', 110, 0.000056],
      ['gpt-4.1-mini', 128, 0.000061],
      ['claude-haiku-4-5', 220, 0.0003],
      ['claude-haiku-4-5', 226, 0.00025],
      ['gemini-3.5-flash', 330, 0.00072],
      ['gemini-3.5-flash', 334, 0.000531],
    ]);
  });
});
