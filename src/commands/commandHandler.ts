import { randomUUID } from 'node:crypto';
import type { Decider } from '../domain/decider.ts';
import { type DomainEvent, encodeEvent } from '../domain/events/domainEvent.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { type EventStore, type EventToAppend, WrongExpectedRevision } from '../eventstore/eventStore.ts';
import { appendWithRetry, loadStream } from '../eventstore/streams.ts';

export interface CommandDependencies {
  eventStore: EventStore;
  now: () => Date;
  /** Credits (tokens) a new organization starts with (SEQFLOW_DEFAULT_CREDITS). */
  defaultCredits?: number;
}

export interface CommandMetadata {
  principal: Principal;
  correlationId?: string;
  causationId?: string;
  /** false: a concurrent write fails the command (CONFLICT) instead of deciding again on fresh state. */
  retryOnConflict?: boolean;
}

export interface CommandResult<State, Event> {
  state: State;
  events: Event[];
  /** Log position of the stream's last event after the command: what a reader waits for. */
  position: number;
}

/** A command that writes to several streams gives all of its events one correlation id. */
export const withCorrelation = (metadata: CommandMetadata): CommandMetadata & { correlationId: string } => ({
  ...metadata,
  correlationId: metadata.correlationId ?? randomUUID(),
});

const MAX_CONFLICT_RETRIES = 5;

/**
 * Runs a command against one stream: fold its events, decide, append with the revision that was
 * read. A concurrent writer makes the append fail with WrongExpectedRevision; the decision is then
 * made again on fresh state (safe, since deciding is pure). A transient failure of the append is
 * retried with the same event ids, which the log deduplicates.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  deps: CommandDependencies,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  metadata: CommandMetadata,
): Promise<CommandResult<State, Event>> {
  for (let attempt = 0; ; attempt++) {
    const { state, revision, position } = await loadStream(deps.eventStore, streamId, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, position };

    const occurredAt = deps.now().toISOString();
    const correlationId = metadata.correlationId ?? randomUUID();
    const toAppend: EventToAppend[] = events.map((event) => ({
      id: randomUUID(),
      ...encodeEvent(event),
      metadata: { correlationId, causationId: metadata.causationId ?? null, principal: metadata.principal, occurredAt },
    }));
    try {
      const result = await appendWithRetry(deps.eventStore, streamId, toAppend, revision === -1 ? 'no_stream' : revision);
      return { state: events.reduce(decider.evolve, state), events, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevision && metadata.retryOnConflict === false) {
        throw new ApiError('CONFLICT', `${streamId} changed concurrently; try again`);
      }
      if (error instanceof WrongExpectedRevision && attempt < MAX_CONFLICT_RETRIES) continue;
      throw error;
    }
  }
}
