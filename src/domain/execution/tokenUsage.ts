import type { TokenUsage } from './executionEvents.ts';

/** More tokens than any model call spends: a count past it is a provider's bug, not a bill. */
const MAX_TOKENS_PER_CALL = 100_000_000;

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL;

/**
 * A provider's reported usage as Seqflow charges it, or why it cannot be: each count a whole number
 * from 0 to 100 million (a negative, fractional, infinite or missing count is refused, never charged
 * or counted in the metrics). The total is the two counts' sum, whatever the provider says it is.
 */
export function tokenUsageOf(reported: { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined): { usage: TokenUsage | null } | { problem: string } {
  if (reported === null || reported === undefined) return { usage: null };
  for (const field of ['prompt_tokens', 'completion_tokens'] as const) {
    const value = reported[field];
    if (!isCount(value)) return { problem: `the model provider reported ${field} = ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))}, which is not a token count` };
  }
  const promptTokens = reported.prompt_tokens as number;
  const completionTokens = reported.completion_tokens as number;
  return { usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens } };
}
