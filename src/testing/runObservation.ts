import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { type RunHistory, durationOf } from '../domain/execution/runHistory.ts';
import type { RunObservation } from '../domain/testing/assertions.ts';

/** What the assertions see of a finished (or paused) run: its history, and the tool calls its model asked for. */
export function observeRun(history: RunHistory, events: readonly ExecutionEvent[]): RunObservation & { status: 'completed' | 'failed' | 'paused' } {
  const { ending } = history;
  const toolCalls = events.flatMap((event) => (event.type === 'ExecutionPausedForToolCalls' ? event.data.toolCalls.map((call) => ({ name: call.name, arguments: parseArguments(call.arguments) })) : []));
  return {
    // A run that has not ended stopped at a pause the case's scripted results could not answer.
    status: ending?.status ?? 'paused',
    result: ending?.status === 'completed' ? ending.result : null,
    latencyMs: durationOf(ending) ?? 0,
    tokens: history.tokens,
    toolCalls,
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
