import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelAttempt, TokenUsage } from '../../domain/execution/executionEvents.ts';
import { replyOutput } from '../../domain/execution/outputShape.ts';
import { storableExcerpt } from '../../domain/text/storableText.ts';
import { unstorableJson } from '../../domain/validation/storableJson.ts';
import type { SchemaValidators } from '../schemaValidators.ts';
import { BlockFailure } from './blockFailure.ts';
import type { LlmCall, LlmResult } from './llmCall.ts';
import { parseStructured } from './structuredReply.ts';

/** How much of a reply an attempt keeps: the length says what was cut. */
const REPLY_EXCERPT = 2000;

const usageOf = (u: OpenAI.CompletionUsage | undefined): TokenUsage | null => (u ? { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens } : null);
const attemptOf = (reply: string | null | undefined, usage: OpenAI.CompletionUsage | undefined, rejection: string | null): ModelAttempt => ({
  // The excerpt must be storable even when the reply was not (that may be why it was refused).
  reply: storableExcerpt(reply ?? '', REPLY_EXCERPT),
  replyLength: (reply ?? '').length,
  usage: usageOf(usage),
  rejection,
});

const addUsage = (a: TokenUsage, b: OpenAI.CompletionUsage | undefined): TokenUsage => ({
  promptTokens: a.promptTokens + (b?.prompt_tokens ?? 0),
  completionTokens: a.completionTokens + (b?.completion_tokens ?? 0),
  totalTokens: a.totalTokens + (b?.total_tokens ?? 0),
});

/**
 * What the model said instead of answering, or null when it answered: OpenAI's `refusal`, or a reply
 * its provider filtered (`content_filter`: Anthropic's refusal, Gemini's safety stops, Azure's
 * filters), cut or empty. Kept only in the step's attempts, which are sealed with the run's data: the
 * failure's message is not (src/domain/privacy/sealedFields.ts), so it never quotes the model.
 */
function refusalOf(choice: OpenAI.ChatCompletion.Choice | undefined): { said: string; why: string } | null {
  // A string, even an empty one: the API sends null when the model answered.
  if (typeof choice?.message?.refusal === 'string') return { said: choice.message.refusal, why: 'refused to answer' };
  if (choice?.finish_reason !== 'content_filter') return null;
  return { said: choice.message?.content ?? '', why: 'refused to answer: its provider filtered the reply (finish_reason content_filter)' };
}

/**
 * One model turn, or two when a structured reply needs its repair attempt; `spent` counts the
 * tokens as they are used, `spent.attempts` every reply with why it was refused (a failure carries them).
 */
export async function converse(
  call: LlmCall,
  messages: ChatCompletionMessageParam[],
  create: () => Promise<OpenAI.ChatCompletion>,
  spent: { usage: TokenUsage; attempts: ModelAttempt[] },
  validators: SchemaValidators,
): Promise<LlmResult> {
  // With a schema, a reply that ignores it gets one repair attempt.
  const validationErrors: string[] = [];
  for (let attempt = 1; attempt <= (call.output ? 2 : 1); attempt++) {
    const completion = await create();
    const usage = (spent.usage = addUsage(spent.usage, completion.usage));
    const message = completion.choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter((c) => c.type === 'function');
    // A call for a tool the caller never offered (or with no tools at all) is not the caller's to
    // answer: passed on, it would pause the run for a tool nobody has. The block fails, saying so.
    const offered = new Set((call.tools?.tools ?? []).map((t) => t.function.name));
    const unoffered = calls.filter((c) => !offered.has(c.function.name));
    if (unoffered.length > 0) {
      spent.attempts.push(attemptOf(JSON.stringify(unoffered.map((c) => ({ name: c.function.name, arguments: c.function.arguments }))), completion.usage, 'the model asked for a tool that was not offered'));
      throw Object.assign(new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} asked for a tool that was not offered (${offered.size === 0 ? 'the block was given no tools' : `offered: ${offered.size}`})`, { detail: `asked for ${unoffered.map((c) => c.function.name).join(', ')}` }), { usage });
    }
    if (calls.length > 0) {
      const toolCalls = calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
      const request: ChatCompletionMessageParam = {
        role: 'assistant',
        content: message?.content ?? null,
        // A provider's own field on a call (Gemini's signature, geminiTranslation.ts) goes back to it on the resume.
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments }, ...('extra_content' in c ? { extra_content: c.extra_content } : {}) })),
      };
      const unstorable = unstorableJson(toolCalls, 'toolCalls');
      if (unstorable) throw new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} asked for tool calls that cannot be stored`, { detail: unstorable.message });
      return { kind: 'tool_calls', toolCalls, conversation: [...messages, request], usage };
    }
    const refusal = refusalOf(completion.choices[0]);
    if (refusal !== null) {
      // A refusal is not repaired by asking again for the schema: the block fails, what the model said kept with its attempt.
      spent.attempts.push(attemptOf(refusal.said, completion.usage, `the model ${refusal.why}`));
      throw new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} ${refusal.why} (what it said is in the step's attempts)`);
    }
    const reply = message?.content;
    if (!call.output) {
      const output = replyOutput(reply ?? '');
      const unstorable = unstorableJson(output, 'reply');
      if (unstorable) {
        spent.attempts.push(attemptOf(reply, completion.usage, unstorable.message));
        throw new BlockFailure('MODEL_OUTPUT_INVALID', `the reply of model ${call.model} cannot be stored`, { detail: unstorable.message });
      }
      return { kind: 'output', output, usage, attempts: attempt, validationErrors, rejected: [...spent.attempts] };
    }
    const parsed = parseStructured(reply, call.output, validators);
    if (parsed.ok) return { kind: 'output', output: parsed.value, usage, attempts: attempt, validationErrors, rejected: [...spent.attempts] };
    spent.attempts.push(attemptOf(reply, completion.usage, parsed.problem));
    if (attempt === 2) {
      throw Object.assign(new BlockFailure('MODEL_OUTPUT_INVALID', `model ${call.model} ignored the output schema after a repair attempt`, { detail: parsed.problem }), { usage });
    }
    validationErrors.push(parsed.problem);
    messages.push(
      { role: 'assistant', content: reply ?? '' },
      { role: 'user', content: `Your reply was refused: ${parsed.problem}. Reply again with only a JSON object that matches the JSON Schema.` },
    );
  }
  throw new Error('unreachable');
}
