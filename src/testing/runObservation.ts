import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { type RunHistory, durationOf } from '../domain/execution/runHistory.ts';
import { setOwn } from '../domain/ownProperty.ts';
import type { RunObservation, StepObservation } from '../domain/testing/assertions.ts';

/** What the assertions see of a finished (or paused) run: its history, the tool calls its model asked for, and each block's part. */
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
    steps: observeSteps(events),
  };
}

/**
 * Each block by name, from its events: a loop's items add up to one block (its output their results
 * in order, its time and tokens their sums, failed when one failed); its tokens are what it was charged.
 */
function observeSteps(events: readonly ExecutionEvent[]): Record<string, StepObservation> {
  const steps: Record<string, StepObservation> = {};
  const of = (name: string) => {
    if (!Object.hasOwn(steps, name)) setOwn(steps, name, { status: 'started', output: null, durationMs: 0, tokens: 0, toolCalls: [] });
    return steps[name]!;
  };
  const loopItems = new Map<string, unknown[]>();
  for (const event of events) {
    switch (event.type) {
      case 'ExecutionStepStarted':
        of(event.data.blockName);
        break;
      case 'ExecutionStepCompleted': {
        const step = of(event.data.blockName);
        step.durationMs += event.data.durationMs;
        if (event.data.iteration === null) {
          step.output = event.data.output;
          if (step.status !== 'failed') step.status = 'completed';
          break;
        }
        const items = loopItems.get(event.data.blockName) ?? [];
        items[event.data.iteration] = event.data.output;
        loopItems.set(event.data.blockName, items);
        step.output = [...items];
        if (step.status !== 'failed') step.status = 'completed';
        break;
      }
      case 'ExecutionStepFailed': {
        const step = of(event.data.blockName);
        step.durationMs += event.data.durationMs;
        step.status = 'failed';
        step.output = null;
        break;
      }
      case 'ExecutionStepSkipped':
        of(event.data.blockName).status = 'skipped';
        break;
      case 'CreditsConsumed':
        of(event.data.blockName).tokens += event.data.tokens;
        break;
      case 'ExecutionPausedForToolCalls':
        of(event.data.blockName).toolCalls.push(...event.data.toolCalls.map((call) => ({ name: call.name, arguments: parseArguments(call.arguments) })));
        break;
      default:
        break;
    }
  }
  return steps;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
