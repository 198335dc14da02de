import type { FailureReason } from './executionEvents.ts';
import type { ResultObject } from './outputShape.ts';
import type { HistoryEntry } from './historyEntry.ts';
import { type JobStatus, type RunStatus, evolveRunStatus, jobStatusOf } from './runStatus.ts';
import { type WaitingFor, waitingForOf } from './waitingFor.ts';

/**
 * A /jobs run as its poll shows it, evolved event by event: the jobs projection applies it to its
 * row, and a poll that comes before the projection folds the run's own events with it, so both
 * answers are the same function of the log. Sync and test runs have no job view.
 */
export interface JobView {
  executionId: string;
  flowId: string;
  /** The poll's status: a mapping of the run's status (runStatus.ts), which `status` and `claims` tell again. */
  status: JobStatus;
  claims: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  result: ResultObject | null;
  failureReason: FailureReason | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** What came from outside the service about the failure (failureMessage.ts); null once the data is erased. */
  errorDetail: string | null;
  /** When the run's data was erased: its result then reads null. */
  dataErasedAt: string | null;
  /** What the run waits for (an approval: an addition to the spec), or null; the poll's status reads `running` meanwhile. */
  waitingFor: WaitingFor | null;
}

/** A job's view when it is first seen: nothing has happened to it yet. */
const newJob = ({ executionId, flowId }: { executionId: string; flowId: string }, createdAt: string): JobView => ({
  executionId, flowId, status: 'started', claims: 0, createdAt, startedAt: null, completedAt: null, durationMs: null, result: null, failureReason: null, errorCode: null, errorMessage: null, errorDetail: null, dataErasedAt: null, waitingFor: null,
});

export function evolveJobView(view: JobView | null, entry: HistoryEntry): JobView | null {
  const { event, occurredAt } = entry;
  if (event.type === 'ExecutionRequested') {
    if (view || event.data.mode !== 'async') return view;
    return { ...newJob(event.data, occurredAt), status: jobStatusOf(evolveRunStatus(null, event)!) };
  }
  if (event.type === 'ApprovalRequested' && !view) {
    // A sync or step run that waits for a person goes on as a job once decided: it is polled as one from here.
    return { ...newJob(event.data, occurredAt), status: 'running', startedAt: occurredAt, waitingFor: waitingForOf(event.data, occurredAt) };
  }
  if (event.type === 'RunDataErased') return view ? { ...view, result: null, errorDetail: null, dataErasedAt: view.dataErasedAt ?? event.data.erasedAt } : view;
  // Only an open job moves on.
  if (!view || view.status === 'completed' || view.status === 'failed') return view;
  const moved = () => ({ ...view, status: jobStatusOf(evolveRunStatus(runStatusOfJob(view.status, view.claims), event)!) });
  switch (event.type) {
    case 'JobClaimed':
      // The first claim sets startedAt; the count is the claim number.
      return { ...moved(), claims: event.data.claim, startedAt: view.startedAt ?? occurredAt };
    case 'ApprovalRequested':
      return { ...moved(), waitingFor: waitingForOf(event.data, occurredAt) };
    case 'ApprovalDecided':
      return { ...moved(), waitingFor: null };
    case 'ExecutionCompleted':
      return { ...moved(), result: event.data.result, completedAt: occurredAt, durationMs: event.data.durationMs };
    case 'ExecutionFailed':
      return { ...moved(), failureReason: event.data.reason, errorCode: event.data.code, errorMessage: event.data.message, errorDetail: event.data.detail, completedAt: occurredAt, durationMs: event.data.durationMs };
    default:
      return view;
  }
}

/** A job's run status from what its row keeps: its poll status and its claims. */
function runStatusOfJob(status: JobStatus, claims: number): RunStatus {
  if (status === 'started') return 'queued';
  if (status === 'running') return claims > 1 ? 'retrying' : 'running';
  return status;
}
