import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import type { RunObservation } from '../domain/testing/assertions.ts';

/** What the assertions see of a finished (or paused) run, from its events. */
export function observeRun(events: readonly ExecutionEvent[]): RunObservation & { status: 'completed' | 'failed' | 'paused' } {
  let result: unknown = null;
  let latencyMs = 0;
  let tokens = 0;
  let status: 'completed' | 'failed' | 'paused' = 'paused';
  const toolCalls: RunObservation['toolCalls'] = [];
  for (const event of events) {
    if (event.type === 'CreditsConsumed') tokens += event.data.tokens;
    if (event.type === 'ExecutionPausedForToolCalls') {
      for (const call of event.data.toolCalls) toolCalls.push({ name: call.name, arguments: parseArguments(call.arguments) });
    }
    if (event.type === 'ExecutionCompleted') [status, result, latencyMs] = ['completed', event.data.result, event.data.durationMs];
    if (event.type === 'ExecutionFailed') [status, result, latencyMs] = ['failed', null, event.data.durationMs];
  }
  return { status, result, latencyMs, tokens, toolCalls };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
