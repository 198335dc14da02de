import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';

type Requested = Extract<ExecutionEvent, { type: 'ExecutionRequested' }>;

/** What the delivery creator needs of a run's request: its callback, if it has one that a delivery may be for. */
export type RequestedCallback =
  | { flowId: string; organizationId: string; callbackUrl: string; callbackEvents: string[]; traceparent: string | undefined; schedule: { scheduleId: string; scheduledFor: string } | null; requestedAt: string }
  | 'none';

/** A /jobs run's callback as its request gives it; 'none' for any other run. */
export function callbackOf({ data }: Requested, { metadata }: Pick<RecordedEvent, 'metadata'>): RequestedCallback {
  if (data.mode !== 'async' || !data.callbackUrl) return 'none';
  return { flowId: data.flowId, organizationId: data.organizationId, callbackUrl: data.callbackUrl, callbackEvents: data.callbackEvents, traceparent: metadata.traceparent, schedule: data.schedule, requestedAt: metadata.occurredAt };
}

/**
 * The requests of the runs the delivery creator has seen in the log and not yet seen end, newest
 * `bound` of them: a request always comes before its run's end in the log, so for most endings the
 * creator knows the request without reading the run's stream (a round trip per run, and most runs
 * have no callback). A run it does not know (requested before the reactor's checkpoint, or pushed
 * out by newer ones) is read from its stream as before.
 */
export function createRequestedCallbacks(bound: number) {
  const requests = new Map<string, RequestedCallback>();
  return {
    size: () => requests.size,
    remember(requested: Requested, recorded: Pick<RecordedEvent, 'metadata'>) {
      const { executionId } = requested.data;
      requests.delete(executionId);
      requests.set(executionId, callbackOf(requested, recorded));
      // Insertion order is age: the oldest goes first.
      if (requests.size > bound) requests.delete(requests.keys().next().value!);
    },
    /** The request of a run, if known. */
    get: (executionId: string): RequestedCallback | undefined => requests.get(executionId),
    /** Once a run's end is handled (a run ends once); kept until then, so a retry after a failure still knows it. */
    forget(executionId: string) {
      requests.delete(executionId);
    },
  };
}
