import type { Principal } from '../domain/events/eventMetadata.ts';

/**
 * Who starts or reads a run, whatever the transport: the project it may reach, the API key it
 * is charged to (none for an assistant or an operator), the principal its events carry, and the
 * request's id and trace for the run's metadata.
 */
export interface RunCaller {
  projectId: string;
  apiKeyId: string | null;
  principal: Principal;
  /** The request that started the work (X-Request-Id): on every event of the run, a worker's too. */
  requestId?: string;
  /** The request's trace (W3C traceparent), when tracing is on: the run's spans continue it. */
  traceparent?: string;
}

/** What a run's events record of its caller. */
export const originOf = ({ principal, requestId, traceparent }: RunCaller) => ({ principal, requestId, traceparent });
