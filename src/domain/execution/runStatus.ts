import type { ExecutionEvent } from './executionEvents.ts';

/**
 * A run's status, the one every face shows (the job poll, the runs listing, the console, traces,
 * MCP): `queued` while a job waits for a runner, `running`, `retrying` once a job was taken over
 * (claimed again), `paused` while it waits for tool results, `waiting` while it waits for a person's
 * decision at an approval block (an addition to the spec), `completed` or `failed`.
 */
export const runStatuses = ['queued', 'running', 'retrying', 'paused', 'waiting', 'completed', 'failed'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** The spec's job statuses (the poll of a /jobs run). */
export const jobStatuses = ['started', 'running', 'completed', 'failed'] as const;
export type JobStatus = (typeof jobStatuses)[number];

const ended = (status: RunStatus | null) => status === 'completed' || status === 'failed';

/** The status an event gives its run, whatever it was (undefined: the event does not change it). Projections that keep no earlier status apply this. */
export function statusAfter(event: ExecutionEvent): RunStatus | undefined {
  switch (event.type) {
    case 'ExecutionRequested':
      return event.data.mode === 'async' ? 'queued' : 'running';
    case 'JobClaimed':
      return event.data.claim > 1 ? 'retrying' : 'running';
    case 'ExecutionPausedForToolCalls':
      return 'paused';
    case 'ExecutionResumed':
      return 'running';
    case 'ApprovalRequested':
      return 'waiting';
    case 'ApprovalDecided':
      // Decided: the run goes on (a job runner continues it), or ends in the same append (on_timeout: fail).
      return 'running';
    case 'ExecutionCompleted':
      return 'completed';
    case 'ExecutionFailed':
      return 'failed';
    default:
      return undefined; // step progress, credits, rerun links: the status stays
  }
}

/** One step of the fold: null before the run was requested; an ended run's status never changes. */
export function evolveRunStatus(status: RunStatus | null, event: ExecutionEvent): RunStatus | null {
  if (ended(status) || (status !== null && event.type === 'ExecutionRequested')) return status;
  return statusAfter(event) ?? status;
}

/** A job's poll status is a mapping of its run status: waiting for a runner is `started`; taken over is still `running`. */
export function jobStatusOf(status: RunStatus): JobStatus {
  switch (status) {
    case 'queued':
      return 'started';
    case 'retrying':
    case 'paused':
    case 'waiting':
      return 'running';
    default:
      return status;
  }
}
