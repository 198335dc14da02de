import type { FailureReason } from './executionEvents.ts';
import type { ResultObject } from './outputShape.ts';
import type { HistoryEntry } from './historyEntry.ts';

/**
 * A /jobs run as its poll shows it, evolved event by event: the jobs projection applies it to its
 * row, and a poll that comes before the projection folds the run's own events with it, so both
 * answers are the same function of the log. Sync and test runs have no job view.
 */
export interface JobView {
  executionId: string;
  flowId: string;
  status: 'started' | 'running' | 'completed' | 'failed';
  claims: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  result: ResultObject | null;
  failureReason: FailureReason | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export function evolveJobView(view: JobView | null, { event, occurredAt }: HistoryEntry): JobView | null {
  switch (event.type) {
    case 'ExecutionRequested':
      if (view || event.data.mode !== 'async') return view;
      return { executionId: event.data.executionId, flowId: event.data.flowId, status: 'started', claims: 0, createdAt: occurredAt, startedAt: null, completedAt: null, durationMs: null, result: null, failureReason: null, errorCode: null, errorMessage: null };
    case 'JobClaimed':
      // Only an open job moves to running; the first claim sets startedAt, the count is the claim number.
      if (!view || (view.status !== 'started' && view.status !== 'running')) return view;
      return { ...view, status: 'running', claims: event.data.claim, startedAt: view.startedAt ?? occurredAt };
    case 'ExecutionCompleted':
      return view && { ...view, status: 'completed', result: event.data.result, completedAt: occurredAt, durationMs: event.data.durationMs };
    case 'ExecutionFailed':
      return view && { ...view, status: 'failed', failureReason: event.data.reason, errorCode: event.data.code, errorMessage: event.data.message, completedAt: occurredAt, durationMs: event.data.durationMs };
    default:
      return view;
  }
}
