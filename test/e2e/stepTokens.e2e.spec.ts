import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedAnthropicServer } from '../support/scriptedAnthropicServer.ts';
import { startScriptedGeminiServer } from '../support/scriptedGeminiServer.ts';
import type { ScriptedModelServer } from '../support/scriptedModelServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { type SseFrame, openSse } from '../support/sseClient.ts';
import { eventsApart } from '../support/runEventsApart.ts';

const lookup = { type: 'function', function: { name: 'lookup', description: 'Finds a fact', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };
const flows = {
  answer: [
    { block: { name: 'prep', processor_type: 'code', code: 'return input.message.trim();' } },
    { block: { name: 'answer', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: 'Answer: {{previous_output}}' } },
  ],
  // One block per provider that streams: OpenAI, Anthropic and Gemini.
  three: [
    { block: { name: 'draft', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: '{{message}}' } },
    { block: { name: 'polish', processor_type: 'llm', model: 'claude-haiku-4-5', prompt: '{{previous_output}}' } },
    { block: { name: 'close', processor_type: 'llm', model: 'gemini-3.5-flash', prompt: '{{previous_output}}' } },
  ],
  agent: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4.1-mini', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
};

interface TokenData {
  stepId: string;
  blockName: string;
  iteration: number | null;
  delta: string;
}

describe('/step streams an llm block\'s reply as `token` events while it is written', () => {
  let service: SeededService;
  let claude: ScriptedModelServer;
  let gemini: ScriptedModelServer;

  const step = async (flow: string, body: unknown) =>
    (await openSse(`${service.base}/seq/acme/web/${flow}/step`, { method: 'POST', headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).rest();
  const named = (frames: SseFrame[]) => frames.filter((f) => f.event);
  const deltas = (frames: SseFrame[], blockName: string) => frames.filter((f) => f.event === 'token' && (f.data as TokenData).blockName === blockName).map((f) => (f.data as TokenData).delta);

  beforeAll(async () => {
    claude = await startScriptedAnthropicServer();
    gemini = await startScriptedGeminiServer();
    service = await startSeededService('step_tokens', flows, { ANTHROPIC_BASE_URL: claude.baseUrl, ANTHROPIC_API_KEY: 'a', GEMINI_BASE_URL: gemini.baseUrl, GEMINI_API_KEY: 'g', SEQFLOW_LLM_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await service?.close();
    await claude?.close();
    await gemini?.close();
  });
  beforeEach(() => {
    service.model.reset();
    claude.reset();
    gemini.reset();
  });

  it('sends the pieces after the step starts and before it completes; they add up to its output, and the log records the reply once', async () => {
    service.model.script({ content: 'Event logs keep every fact.', chunks: ['Event ', 'logs keep', ' every fact.'] });
    const frames = named(await step('answer', { message: ' what is an event log? ' }));
    expect(frames.map((f) => f.event)).toEqual(['started', 'step_started', 'step_completed', 'step_started', 'token', 'token', 'token', 'step_completed', 'completed']);
    const tokens = frames.filter((f) => f.event === 'token');
    const answerStarted = frames[3]!.data as { blockId: string };
    expect(tokens.map((f) => f.data)).toEqual(['Event ', 'logs keep', ' every fact.'].map((delta) => ({ executionId: expect.any(String), stepId: answerStarted.blockId, blockName: 'answer', iteration: null, delta })));
    // Not in the log: no id, so a reader coming back with Last-Event-ID resumes at recorded events only.
    expect(tokens.every((f) => f.id === undefined)).toBe(true);
    expect((frames[7]!.data as { output: unknown }).output).toBe(deltas(frames, 'answer').join(''));
    // The request asked for a stream with its usage, and the usage was charged as without one.
    expect(service.model.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const executionId = (frames[0]!.data as { executionId: string }).executionId;
    const logged = eventsApart(await service.t.runtime.eventStore.readStream(`execution-${executionId}`));
    expect(logged.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed', 'ExecutionCompleted']);
  });

  it('keeps a character cut between two pieces (an emoji split into its halves) whole once the pieces are joined', async () => {
    service.model.script({ content: 'a\u{1F600}b', chunks: ['a\ud83d', '\ude00b'] });
    const frames = named(await step('answer', { message: 'smile' }));
    expect(deltas(frames, 'answer').join('')).toBe('a\u{1F600}b');
    expect(frames.find((f) => f.event === 'step_completed' && (f.data as { blockName: string }).blockName === 'answer')!.data).toMatchObject({ output: 'a\u{1F600}b' });
  });

  it('streams each provider through its own stream: OpenAI chunks, Anthropic events and Gemini streamGenerateContent', async () => {
    service.model.script({ content: 'one two three' });
    claude.script({ content: 'four five' });
    gemini.script({ content: 'six seven eight' });
    const frames = named(await step('three', { message: 'count' }));
    expect(frames.at(-1)).toMatchObject({ event: 'completed', data: { result: { text: 'six seven eight' } } });
    expect(deltas(frames, 'draft')).toEqual(['one ', 'two ', 'three']);
    expect(deltas(frames, 'polish')).toEqual(['four ', 'five']);
    expect(deltas(frames, 'close')).toEqual(['six ', 'seven ', 'eight']);
    expect(claude.requests[0]!.body).toMatchObject({ stream: true });
    expect(gemini.requests[0]!.url).toBe('/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse');
    // Each provider's usage came with its stream: every block was charged its tokens.
    const executionId = (frames[0]!.data as { executionId: string }).executionId;
    const charges = (await service.t.runtime.eventStore.readStream(`execution-${executionId}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => (e.data as { tokens: number }).tokens);
    expect(charges).toEqual([15, 15, 15]);
  });

  it('puts a streamed tool call back together: the run pauses for it as without a stream', async () => {
    service.model.script({ toolCalls: [{ id: 'call_s', name: 'lookup', arguments: '{"q":"tides"}' }] });
    const frames = named(await step('agent', { message: 'tides?', tools: [lookup] }));
    expect(frames.at(-1)).toMatchObject({ event: 'step_paused_for_tool_calls', data: { toolCalls: [{ id: 'call_s', function: { name: 'lookup', arguments: '{"q":"tides"}' } }] } });
    expect(frames.some((f) => f.event === 'token')).toBe(false);
  });

  it('does not stream a run nobody follows: /execute and /jobs ask for no stream', async () => {
    service.model.script({ content: 'plain' });
    const run = await service.execute('answer', { message: 'q' });
    expect(run.body).toMatchObject({ status: 'completed', result: { text: 'plain' } });
    expect(service.model.requests.at(-1)!.body).not.toHaveProperty('stream');
  });
});
