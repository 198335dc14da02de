import type { ExecutionEvent, RequestedToolCall } from '../domain/execution/executionEvents.ts';
import { type RecordedCall, recordedCalls } from '../domain/backtests/toolReplay.ts';
import type { ObservedSide } from '../domain/backtests/pairComparison.ts';
import { type RunHistory, durationOf } from '../domain/execution/runHistory.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';

/** How a run ended, as a side of a pair: its status, result, duration, tokens and error. */
export function sideOf(history: RunHistory): ObservedSide {
  const ending = history.ending;
  return {
    status: ending?.status ?? 'paused',
    result: ending?.status === 'completed' ? ending.result : null,
    durationMs: durationOf(ending) ?? 0,
    tokens: history.tokens,
    error: ending?.status === 'failed' ? { code: ending.failure.code, message: ending.failure.message } : null,
    steps: history.outputs,
  };
}

/** The tool rounds of a run: each pause's calls, with the results of the resume that answered it. */
function toolRounds(events: readonly ExecutionEvent[]) {
  const rounds: { toolCalls: RequestedToolCall[]; toolResults: { toolCallId: string; name: string; content: string }[] | null }[] = [];
  let pending: RequestedToolCall[] | null = null;
  for (const event of events) {
    if (event.type === 'ExecutionPausedForToolCalls') pending = event.data.toolCalls;
    if (event.type === 'ExecutionResumed' && pending) {
      rounds.push({ toolCalls: pending, toolResults: event.data.toolResults });
      pending = null;
    }
  }
  return rounds;
}

/**
 * What a backtest needs of a recorded run, from its own stream (through the upcasters): its input,
 * the tools its caller declared, each tool call with the result its caller sent (null when a resume
 * was recorded before results were kept), how it ended, when its data was erased (its input then
 * reads empty), and `revision`: where its stream stood (erasedSince looks past it).
 */
export async function readRecordedRun(eventStore: EventStore, executionId: string) {
  const { events, history } = await readRunHistory(eventStore, executionId);
  const requested = history.requested;
  if (!requested) return undefined;
  const calls: RecordedCall[] | null = recordedCalls(toolRounds(events));
  const erasure = events.find((e) => e.type === 'RunDataErased');
  return { requested, calls, side: sideOf(history), erasedAt: erasure?.type === 'RunDataErased' ? erasure.data.erasedAt : null, revision: events.length };
}

/** When the run's data was erased after `recorded` was read (null: not since): a look just before recording what quotes it. */
export async function erasedSince(eventStore: EventStore, executionId: string, recorded: Pick<RecordedRun, 'revision' | 'erasedAt'>): Promise<string | null> {
  if (recorded.erasedAt) return recorded.erasedAt;
  const later = await eventStore.readStream(executionStream(executionId), { fromRevision: recorded.revision, unreadable: 'mark' });
  for (const event of later.map(decodeRecorded)) if (event.type === 'RunDataErased') return event.data.erasedAt;
  return null;
}

export type RecordedRun = NonNullable<Awaited<ReturnType<typeof readRecordedRun>>>;
