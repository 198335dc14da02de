import type { StoredStep } from '../flows/flowDefinition.ts';
import { setOwn } from '../ownProperty.ts';
import type { EventOf } from '../events/eventDefinition.ts';
import type { ExecutionFailed, ExecutionRequested, ExecutionStepCompleted } from './executionEvents.ts';
import type { HistoryEntry } from './historyEntry.ts';
import { type JobView, evolveJobView } from './jobView.ts';
import { type RunStatus, evolveRunStatus } from './runStatus.ts';
import type { ResultObject } from './outputShape.ts';
import type { ApprovalDecided, ApprovalRequested } from '../blocks/approval/approvalEvents.ts';
import type { SubflowStarted } from '../blocks/flow/subflowEvents.ts';
import { subflowKey } from '../blocks/flow/subflowLink.ts';

/** An approval block's wait in a run: what was asked and when, and its decision once made. */
export interface ApprovalRecord {
  requested: EventOf<typeof ApprovalRequested>['data'];
  requestedAt: string;
  decided: EventOf<typeof ApprovalDecided>['data'] | null;
}

/**
 * A run's history as every reader needs it, folded once from the run's events (decoded through the
 * upcasters): what was asked, who claimed it, each completed block with its output, the latest
 * pause, and how it ended, with the times the log recorded. The engine resumes and takes over from
 * it, /step streams replay from it, and a job poll answers from it while the read model catches up.
 */
export type RequestedRun = EventOf<typeof ExecutionRequested>['data'];
export type CompletedStep = EventOf<typeof ExecutionStepCompleted>['data'];
export type RunFailure = EventOf<typeof ExecutionFailed>['data'];
export type { HistoryEntry } from './historyEntry.ts';

export interface RunHistory {
  requested: RequestedRun | null;
  requestedAt: string | null;
  /** Job claims so far, and when the first one was made. */
  claims: number;
  claimedAt: string | null;
  /** The run's status (runStatus.ts); null before it was requested. */
  status: RunStatus | null;
  /** Every completed block, in the order the log recorded them. */
  completedSteps: CompletedStep[];
  /** Blocks their run_if skipped (their output reads as null), in the order recorded. */
  skippedSteps: { stepIndex: number; blockName: string }[];
  /** Outputs of completed top-level blocks by block name (a loop's: its items' results in order; a skipped block's: null). */
  outputs: Record<string, unknown>;
  /** The run's approvals by block name, in the order asked. */
  approvals: Record<string, ApprovalRecord>;
  /** The child runs its flow blocks started, by `subflowKey` (stepIndex|blockName|iteration). */
  subflows: Record<string, EventOf<typeof SubflowStarted>['data']>;
  /** Model tokens the run was charged for, all blocks and tool rounds together. */
  tokens: number;
  ending: { status: 'completed'; result: ResultObject; durationMs: number; at: string } | { status: 'failed'; failure: RunFailure; at: string } | null;
  /** A /jobs run as its poll shows it (null for other runs): the jobs projection evolves its rows with the same function. */
  job: JobView | null;
}

export const emptyRunHistory = (): RunHistory => ({ requested: null, requestedAt: null, claims: 0, claimedAt: null, status: null, completedSteps: [], skippedSteps: [], outputs: {}, approvals: {}, subflows: {}, tokens: 0, ending: null, job: null });

export function evolveRunHistory(history: RunHistory, entry: HistoryEntry): RunHistory {
  const job = evolveJobView(history.job, entry);
  const status = evolveRunStatus(history.status, entry.event);
  const evolved = evolveRun(history, entry);
  return job === history.job && status === evolved.status ? evolved : { ...evolved, job, status };
}

function evolveRun(history: RunHistory, { event, occurredAt }: HistoryEntry): RunHistory {
  switch (event.type) {
    case 'ExecutionRequested':
      return { ...history, requested: event.data, requestedAt: occurredAt };
    case 'JobClaimed':
      return { ...history, claims: event.data.claim, claimedAt: history.claimedAt ?? occurredAt };
    case 'ExecutionStepCompleted': {
      const outputs = { ...history.outputs };
      if (event.data.iteration === null) setOwn(outputs, event.data.blockName, event.data.output);
      else {
        // A loop's output is its items' results in order, as the engine hands it on.
        const results = Array.isArray(outputs[event.data.blockName]) ? [...(outputs[event.data.blockName] as unknown[])] : [];
        results[event.data.iteration] = event.data.output;
        setOwn(outputs, event.data.blockName, results);
      }
      return { ...history, completedSteps: [...history.completedSteps, event.data], outputs };
    }
    case 'ExecutionStepSkipped': {
      const outputs = { ...history.outputs };
      setOwn(outputs, event.data.blockName, null);
      return { ...history, skippedSteps: [...history.skippedSteps, { stepIndex: event.data.stepIndex, blockName: event.data.blockName }], outputs };
    }
    case 'ApprovalRequested':
      return { ...history, approvals: { ...history.approvals, [event.data.blockName]: { requested: event.data, requestedAt: occurredAt, decided: null } } };
    case 'ApprovalDecided': {
      const asked = history.approvals[event.data.blockName];
      return asked ? { ...history, approvals: { ...history.approvals, [event.data.blockName]: { ...asked, decided: event.data } } } : history;
    }
    case 'SubflowStarted':
      return { ...history, subflows: { ...history.subflows, [subflowKey(event.data.stepIndex, event.data.blockName, event.data.iteration)]: event.data } };
    case 'CreditsConsumed':
      return { ...history, tokens: history.tokens + event.data.tokens };
    case 'ExecutionCompleted':
      return { ...history, ending: { status: 'completed', result: event.data.result, durationMs: event.data.durationMs, at: occurredAt } };
    case 'ExecutionFailed':
      return { ...history, ending: { status: 'failed', failure: event.data, at: occurredAt } };
    default:
      return history;
  }
}

/** How long an ended run took, as its ending event recorded (null while it has not ended). */
export const durationOf = (ending: RunHistory['ending']): number | null =>
  ending === null ? null : ending.status === 'completed' ? ending.durationMs : ending.failure.durationMs;

export const foldRunHistory = (entries: Iterable<HistoryEntry>): RunHistory => {
  let history = emptyRunHistory();
  for (const entry of entries) history = evolveRunHistory(history, entry);
  return history;
};

/** What a step's successors saw as `previous_output`: a block's output, a parallel step's by name, a loop's in item order. */
export function outputOfStep(history: RunHistory, step: StoredStep, stepIndex: number): unknown {
  const ofStep = history.completedSteps.filter((c) => c.stepIndex === stepIndex);
  if ('parallel' in step) return Object.fromEntries(step.parallel.map((b) => [b.name, ofStep.find((c) => c.blockName === b.name)?.output]));
  if ('loop' in step) return [...ofStep].sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0)).map((c) => c.output);
  return ofStep[0]?.output;
}
