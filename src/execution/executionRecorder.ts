import { randomUUID } from 'node:crypto';
import { appendWithRetry } from '../eventstore/streams.ts';
import { encodeEvent } from '../domain/events/domainEvent.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { type ExecutionState, type ResumeRequest, execution } from '../domain/execution/execution.ts';
import { type ExecutionEvent, executionStream } from '../domain/execution/executionEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ExecutionUpdates } from './executionUpdates.ts';

/**
 * Writes one run's events to `execution-<id>`. The engine is that stream's only writer while it
 * runs, so the recorder keeps the revision itself and appends in order (parallel blocks queue up
 * here) with it as the expected revision: one round trip per fact, and a second writer would be
 * refused rather than interleaved.
 *
 * `record` is durable; `note` may return before its events are on disk (the next durable record
 * makes them durable too, as the log is flushed in order). The engine notes what it can redo and
 * records what must survive: money spent on models, and the run's end.
 */
export function createExecutionRecorder(
  deps: { eventStore: EventStore; now: () => Date; /** Told of every append (in-process /step readers). */ updates?: ExecutionUpdates },
  executionId: string,
  principal: Principal,
  /** Where an existing run's stream stands, for a resume. */
  from: { state: ExecutionState; revision: number } = { state: execution.initialState(), revision: -1 },
) {
  const streamId = executionStream(executionId);
  let state: ExecutionState = from.state;
  let revision = from.revision;
  let position = 0;
  let queue: Promise<unknown> = Promise.resolve();

  function append(commands: Parameters<typeof execution.decide>[0][], durability: 'durable' | 'deferred'): Promise<number> {
    const appended = queue.then(async () => {
      let next = state;
      const decided = commands.flatMap((command) => {
        const out = execution.decide(command, next);
        next = out.reduce(execution.evolve, next);
        return out;
      });
      const occurredAt = deps.now().toISOString();
      const result = await appendWithRetry(
        deps.eventStore,
        streamId,
        decided.map((event) => ({
          id: randomUUID(),
          ...encodeEvent(event),
          metadata: { correlationId: executionId, causationId: null, principal, occurredAt },
        })),
        revision === -1 ? 'no_stream' : revision,
        { durability },
      );
      revision = result.nextExpectedRevision;
      position = result.position;
      state = next;
      deps.updates?.notify(executionId);
      return position;
    });
    queue = appended.catch(() => undefined);
    return appended;
  }

  return {
    record: (...events: ExecutionEvent[]) => append(events.map((event) => ({ type: 'Record' as const, event })), 'durable'),
    note: (...events: ExecutionEvent[]) => append(events.map((event) => ({ type: 'Record' as const, event })), 'deferred'),
    /** Accepts a caller's tool results for the recorded pause (the decider checks them), durably. */
    resume: (request: ResumeRequest, flowId: string) => append([{ type: 'Resume', data: request, flowId }], 'durable'),
    state: () => state,
    revision: () => revision,
    streamId,
    position: () => position,
  };
}

export type ExecutionRecorder = ReturnType<typeof createExecutionRecorder>;
