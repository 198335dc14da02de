import type { ProviderName } from '../domain/models/modelRoute.ts';
import { randomUUID } from 'node:crypto';
import type { Decider } from '../domain/decider.ts';
import { type DomainEvent, encodeEvent } from '../domain/domainEvent.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type Principal, originMarks } from '../domain/events/eventMetadata.ts';
import { type EventStore, type EventToAppend, WrongExpectedRevision } from '../eventstore/eventStore.ts';
import { appendWithRetry, loadStream } from '../eventstore/streams.ts';
import { RETRY_POLICIES } from '../domain/retry/retryPolicy.ts';
import { type RetryWaits, retrying } from '../supervision/retrying.ts';

export interface CommandDependencies {
  eventStore: EventStore;
  now: () => Date;
  /** Credits (tokens) a new organization starts with (SEQFLOW_DEFAULT_CREDITS). */
  defaultCredits?: number;
  /** The model providers the service has an account with: a publish refuses models routed elsewhere (unset: not checked). */
  modelProviders?: readonly ProviderName[];
  /** How its retries (a lost connection, a concurrent writer) wait: real time unless given. */
  retryWaits?: RetryWaits;
}

export interface CommandMetadata {
  principal: Principal;
  correlationId?: string;
  causationId?: string;
  /** The API request that sent the command (X-Request-Id), stamped on its events. */
  requestId?: string;
  /** The trace the command's work belongs to (W3C traceparent), stamped on its events. */
  traceparent?: string;
  /** false: a concurrent write fails the command (CONFLICT) instead of deciding again on fresh state. */
  retryOnConflict?: boolean;
}

export interface CommandResult<State, Event> {
  state: State;
  /** The stream's revision after the command: with `state`, what a next command on it may start from. */
  revision: number;
  events: Event[];
  /** Log position of the stream's last event after the command: what a reader waits for. */
  position: number;
}

/** A command that writes to several streams gives all of its events one correlation id. */
export const withCorrelation = (metadata: CommandMetadata): CommandMetadata & { correlationId: string } => ({
  ...metadata,
  correlationId: metadata.correlationId ?? randomUUID(),
});

/**
 * Runs a command against one stream: fold its events, decide, append with the revision that was
 * read. A concurrent writer makes the append fail with WrongExpectedRevision; the decision is then
 * made again on fresh state (safe, since deciding is pure). A transient failure of the append is
 * retried with the same event ids, which the log deduplicates. `known`: the stream's state and
 * revision as the caller's last command on it left them, which saves the first read (a write by
 * anyone else since then makes the append fail, and the decision is made again on what is read).
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  deps: CommandDependencies,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  metadata: CommandMetadata,
  known?: { state: State; revision: number; position: number },
): Promise<CommandResult<State, Event>> {
  // A concurrent writer is retried by the one policy (a jittered backoff, six tries); anything else ends the command.
  const conflicts = { policy: RETRY_POLICIES.commandConflict, classify: (error: unknown) => (error instanceof WrongExpectedRevision ? ('retryable' as const) : ('terminal' as const)), ...deps.retryWaits };
  return retrying(conflicts, async (attempt) => {
    const { state, revision, position } = attempt === 1 && known ? known : await loadStream(deps.eventStore, streamId, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, revision, events, position };

    const occurredAt = deps.now().toISOString();
    const correlationId = metadata.correlationId ?? randomUUID();
    const toAppend: EventToAppend[] = events.map((event) => ({
      id: randomUUID(),
      ...encodeEvent(event),
      metadata: {
        correlationId,
        causationId: metadata.causationId ?? null,
        principal: metadata.principal,
        occurredAt,
        ...originMarks(metadata),
      },
    }));
    try {
      const result = await appendWithRetry(deps.eventStore, streamId, toAppend, revision === -1 ? 'no_stream' : revision, undefined, deps.retryWaits);
      return { state: events.reduce(decider.evolve, state), revision: result.nextExpectedRevision, events, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevision && metadata.retryOnConflict === false) {
        throw new ApiError('CONFLICT', `${streamId} changed concurrently; try again`);
      }
      throw error;
    }
  });
}
