import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { emptyRunHistory, evolveRunHistory } from '../domain/execution/runHistory.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ExecutionUpdates } from '../execution/executionUpdates.ts';
import { STEP_TERMINAL, type StepEvent, stepEventOf } from './stepEvents.ts';

/** Where a follower reads a run: the log, and this process's news of its runs. */
export interface RunFollowing {
  eventStore: Pick<EventStore, 'readStream'>;
  updates: Pick<ExecutionUpdates, 'wait' | 'notify' | 'pause'>;
}

export interface FollowedRun {
  executionId: string;
  /** Events up to this revision were seen already (-1: none). */
  afterRevision: number;
  flowId: string;
  blockCount: number;
  /** The run in this process, when the follower started it: if it dies without a terminal event, the follower is told so. */
  outcome?: Promise<unknown>;
}

const POLL_MS = 250;

/**
 * A run's step events, read from its stream in the log: each `id` is the event's revision in
 * `execution-<id>`, so a reader that comes back after the last id it saw misses nothing. Ends after
 * `completed`, `failed` or `step_paused_for_tool_calls`, or when `signal` aborts; the caller's
 * consumption paces the reads. After the first read, only events newer than the last one are read.
 */
export async function* followRun(deps: RunFollowing, run: FollowedRun, signal: AbortSignal): AsyncGenerator<StepEvent & { id: number | null }> {
  let crashed: { code: string; message: string } | undefined;
  run.outcome?.catch((error: unknown) => {
    crashed = { code: 'INTERNAL', message: (error as { code?: string }).code === 'INTERNAL' ? (error as Error).message : 'internal error' };
    deps.updates.notify(run.executionId);
  });
  let after = run.afterRevision;
  // The first read starts at the beginning: a replayed pause carries the outputs of earlier blocks.
  let readFrom = 0;
  let history = emptyRunHistory();
  let ended = false;
  while (!signal.aborted) {
    const events = await deps.eventStore.readStream(executionStream(run.executionId), { fromRevision: readFrom });
    for (const recorded of events) {
      readFrom = recorded.revision + 1;
      const event = decodeRecorded(recorded) as ExecutionEvent;
      ended = STEP_TERMINAL.has(event.type);
      history = evolveRunHistory(history, { event, occurredAt: recorded.metadata.occurredAt });
      if (recorded.revision <= after) continue;
      const pause = event.type === 'ExecutionPausedForToolCalls' ? deps.updates.pause(run.executionId) : undefined;
      const step = stepEventOf(event, run, pause, { ...history.outputs });
      if (step) yield { id: recorded.revision, ...step };
      after = recorded.revision;
      if (ended) return;
    }
    if (ended) return; // came back after the run's last event: nothing more will come
    if (crashed && events.length === 0) {
      // The run died without recording its end (the log itself failed): say so rather than keep the reader waiting.
      yield { id: null, event: 'failed', data: { executionId: run.executionId, code: crashed.code, message: crashed.message, failureReason: 'error', step_name: null } };
      return;
    }
    await deps.updates.wait(run.executionId, POLL_MS, signal);
  }
}
