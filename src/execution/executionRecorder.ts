import { randomUUID } from 'node:crypto';
import { appendWithRetry } from '../commands/commandHandler.ts';
import { encodeEvent } from '../domain/events/domainEvent.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { type ExecutionState, execution } from '../domain/execution/execution.ts';
import { type ExecutionEvent, executionStream } from '../domain/execution/executionEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';

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
export function createExecutionRecorder(eventStore: EventStore, executionId: string, principal: Principal, now: () => Date) {
  const streamId = executionStream(executionId);
  let state: ExecutionState = execution.initialState();
  let revision = -1;
  let position = 0;
  let queue: Promise<unknown> = Promise.resolve();

  function append(events: ExecutionEvent[], durability: 'durable' | 'deferred'): Promise<number> {
    const appended = queue.then(async () => {
      let next = state;
      const decided = events.flatMap((event) => {
        const out = execution.decide({ type: 'Record', event }, next);
        next = out.reduce(execution.evolve, next);
        return out;
      });
      const occurredAt = now().toISOString();
      const result = await appendWithRetry(
        eventStore,
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
      return position;
    });
    queue = appended.catch(() => undefined);
    return appended;
  }

  return {
    record: (...events: ExecutionEvent[]) => append(events, 'durable'),
    note: (...events: ExecutionEvent[]) => append(events, 'deferred'),
    streamId,
    position: () => position,
  };
}

export type ExecutionRecorder = ReturnType<typeof createExecutionRecorder>;
