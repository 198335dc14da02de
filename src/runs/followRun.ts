import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { emptyRunHistory, evolveRunHistory } from '../domain/execution/runHistory.ts';
import { splitJoinedStart } from '../domain/execution/joinedStepStarts.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ExecutionUpdates } from '../execution/executionUpdates.ts';
import { STEP_TERMINAL, type StepEvent, stepEventOf } from './stepEvents.ts';
import type { TokenDelta, TokenReader } from '../execution/tokenFeed.ts';
import { createWakeableSleep } from '../supervision/wakeableSleep.ts';

/** Where a follower reads a run: the log, and this process's news of its runs. */
export interface RunFollowing {
  eventStore: Pick<EventStore, 'readStream'>;
  updates: Pick<ExecutionUpdates, 'onAppend' | 'notify' | 'pause' | 'tokens'>;
}

export interface FollowedRun {
  executionId: string;
  /** Events up to this revision were seen already (-1: none); at a half (4.5), also the start the next event tells. */
  afterRevision: number;
  flowId: string;
  blockCount: number;
  /** The run in this process, when the follower started it: if it dies without a terminal event, the follower is told so. */
  outcome?: Promise<unknown>;
  /** Its reply deltas, when the follower started it (opened before the run, so none is missed). */
  tokens?: TokenReader;
}

const POLL_MS = 250;
const stepKey = (blockId: string, iteration: number | null) => `${blockId}\u0000${iteration ?? ''}`;

/**
 * A run's step events, read from its stream in the log: each `id` is the event's revision in
 * `execution-<id>`, so a reader that comes back after the last id it saw misses nothing. Ends after
 * `completed`, `failed` or `step_paused_for_tool_calls`, or when `signal` aborts; the caller's
 * consumption paces the reads. After the first read, only events newer than the last one are read,
 * when this process appended to the run or every POLL_MS (another process may run it). A completion
 * that tells its block's start (joinedStepStarts.ts) is two frames: the start's id is half a revision
 * before the completion's (4.5, then 5), so a reader back after the start gets only the completion.
 *
 * Between them, `token` events (no id: they are not in the log) carry the pieces of an llm block's
 * reply while a run in this process writes it: each after its step's `step_started` and before its
 * `step_completed` (a step's deltas all arrive before its completion is appended, and the queue is
 * taken before any event that ends a step is given out).
 */
export async function* followRun(deps: RunFollowing, run: FollowedRun, signal: AbortSignal, options: { extended?: boolean } = {}): AsyncGenerator<StepEvent & { id: number | null }> {
  let crashed: { code: string; message: string } | undefined;
  run.outcome?.catch((error: unknown) => {
    crashed = { code: 'INTERNAL', message: (error as { code?: string }).code === 'INTERNAL' ? (error as Error).message : 'internal error' };
    deps.updates.notify(run.executionId);
  });
  const tokens = run.tokens ?? deps.updates.tokens.open(run.executionId);
  const news = createWakeableSleep({ latch: true });
  let appended = true;
  const stopListening = deps.updates.onAppend(run.executionId, () => {
    appended = true;
    news.wake();
  });
  tokens.onArrival(news.wake);
  signal.addEventListener('abort', news.wake, { once: true });
  const started = new Set<string>();
  const ready = (delta: TokenDelta) => started.has(stepKey(delta.stepId, delta.iteration));
  const tokenEvents = () => tokens.take(ready).map(({ stepId, blockName, iteration, delta }) => ({ id: null, event: 'token', data: { executionId: run.executionId, stepId, blockName, iteration, delta } }));
  try {
    let after = run.afterRevision;
    // The first read starts at the beginning: a replayed pause carries the outputs of earlier blocks.
    let readFrom = 0;
    let history = emptyRunHistory();
    let ended = false;
    let lastRead = 0;
    while (!signal.aborted) {
      const reading = appended || performance.now() - lastRead >= POLL_MS;
      appended = false;
      // Known before the read starts: a run that dies while a read is out may have written its last
      // append after the read began, so only a read begun after the death finds everything it wrote.
      const diedBeforeRead = crashed;
      const events = reading ? await deps.eventStore.readStream(executionStream(run.executionId), { fromRevision: readFrom }) : [];
      if (reading) lastRead = performance.now();
      for (const recorded of events) {
        readFrom = recorded.revision + 1;
        const event = decodeRecorded(recorded) as ExecutionEvent;
        ended = STEP_TERMINAL.has(event.type);
        history = evolveRunHistory(history, { event, occurredAt: recorded.metadata.occurredAt });
        if (recorded.revision <= after) continue;
        const parts = splitJoinedStart(event, recorded.metadata.occurredAt);
        for (const [index, { event: part }] of parts.entries()) {
          // A start its completion tells is half a revision before it: a reader back after it gets only the completion.
          const id = index === parts.length - 1 ? recorded.revision : recorded.revision - 0.5;
          if (part.type === 'ExecutionStepStarted') started.add(stepKey(part.data.blockId, part.data.iteration));
          if (id <= after) continue;
          const pause = part.type === 'ExecutionPausedForToolCalls' ? deps.updates.pause(run.executionId) : undefined;
          const step = stepEventOf(part, { flowId: run.flowId, blockCount: run.blockCount, extended: options.extended === true }, pause, { ...history.outputs });
          // A step's reply, as far as it was streamed, before the event that ends the step.
          if (step && step.event !== 'step_started') yield* tokenEvents();
          if (step) yield { id, ...step };
        }
        after = recorded.revision;
        if (ended) return;
      }
      if (ended) return; // came back after the run's last event: nothing more will come
      yield* tokenEvents();
      if (diedBeforeRead && reading && events.length === 0) {
        // The run died without recording its end (the log itself failed): say so rather than keep the reader waiting.
        yield { id: null, event: 'failed', data: { executionId: run.executionId, code: diedBeforeRead.code, message: diedBeforeRead.message, failureReason: 'error', step_name: null } };
        return;
      }
      await news.sleep(POLL_MS);
    }
  } finally {
    tokens.close();
    stopListening();
    signal.removeEventListener('abort', news.wake);
  }
}
