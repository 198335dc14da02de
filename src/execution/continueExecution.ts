import type { Principal } from '../domain/events/eventMetadata.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import { WrongExpectedRevision } from '../eventstore/eventStore.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { EngineDependencies } from './engineDependencies.ts';
import { createExecutionRecorder } from './executionRecorder.ts';
import type { AcceptedJob } from './executionUpdates.ts';
import { runInputOf } from './flowEngine.ts';
import { runHistoryOf } from './runHistoryOf.ts';
import { blockKey } from './runContext.ts';
import { waitingForOf } from '../domain/execution/waitingFor.ts';
import { type ExecutionOutcome, runSteps } from './runSteps.ts';

/**
 * Takes over an accepted or interrupted run (a /jobs run whose worker died): continues from the run's
 * own events. Blocks already completed keep their recorded output and are neither run nor paid for
 * again; `claim` is recorded first, so a previous worker that is still alive finds the stream moved
 * and stops at its next append. Returns undefined when the run has already ended.
 */
export async function continueExecution(
  deps: EngineDependencies,
  input: {
    executionId: string;
    worker: string;
    claim: number;
    principal: Principal;
    loadSteps: (versionId: string) => Promise<StoredStep[]>;
    /** Whether this worker still holds the job's lease: asked before the job is taken back after its claim was refused. */
    leaseHeld?: () => Promise<boolean>;
  },
): Promise<ExecutionOutcome | undefined> {
  // A job's first claim in the process that accepted it knows its stream (its request, at revision
  // 0) without reading it; if anything was appended since (a cancel), JobClaimed is refused and the
  // stream is read after all.
  const accepted = input.claim === 1 ? deps.updates.takeAcceptedJob(input.executionId) : undefined;
  const loaded = accepted ? acceptedStream(accepted) : await loadStream(deps.eventStore, executionStream(input.executionId), execution);
  const { state, revision } = loaded;
  // Waiting for a person: nothing to run until it is decided (the job is parked, runClaimedJob).
  if (state.status === 'waiting') return waitingOutcome(loaded, revision);
  if (state.status !== 'running') return undefined;
  // The worker's events name the request that accepted the job, and continue its trace: one id and one trace follow the run across processes.
  const { requestId, traceparent } = loaded.recorded[0]?.metadata ?? {};
  const recorder = createExecutionRecorder(deps, input.executionId, { principal: input.principal, requestId, traceparent }, { state, revision });
  try {
    await recorder.record({ type: 'JobClaimed', data: { executionId: input.executionId, worker: input.worker, claim: input.claim } });
  } catch (error) {
    // The stream moved since it was accepted here: a cancel (the run has ended: read below), or another
    // worker that took the job over (this one's lease ran out meanwhile): then it is not taken back.
    if (accepted && error instanceof WrongExpectedRevision) {
      if (input.leaseHeld && !(await input.leaseHeld())) return undefined;
      return continueExecution(deps, input);
    }
    throw error;
  }

  const steps = await input.loadSteps(state.versionId);
  const history = runHistoryOf(loaded);
  const requested = history.requested!;
  // A block recorded skipped counts as done too: deciding its condition again on the same outputs skips it without recording it twice.
  const completed = new Map<string, unknown>([...history.completedSteps.map((c) => [blockKey(c.stepIndex, c.blockName, c.iteration), c.output] as const), ...history.skippedSteps.map((c) => [blockKey(c.stepIndex, c.blockName, null), null] as const)]);
  return runSteps(
    deps,
    { ...runInputOf(input.executionId, state.organizationId, state.flowId, steps, requested), tools: undefined, recorder, accumulated: {}, completed, approvals: history.approvals, subflows: history.subflows, trace: { parent: traceparent } },
    0,
    undefined,
    undefined,
  );
}

/** What a run that waits for an approval waits for, from its events. */
function waitingOutcome(loaded: Parameters<typeof runHistoryOf>[0], position: number): ExecutionOutcome {
  const history = runHistoryOf(loaded);
  const open = Object.values(history.approvals).find((a) => a.decided === null)!;
  return { status: 'waiting', executionId: open.requested.executionId, waitingFor: waitingForOf(open.requested, open.requestedAt), accumulatedOutputs: history.outputs, position };
}

/** A job's stream as accepted here, in the shape `loadStream` answers (what continueExecution uses of it). */
function acceptedStream({ event, metadata }: AcceptedJob) {
  return { state: execution.evolve(execution.initialState(), event), revision: 0, recorded: [{ metadata }], events: [event] };
}
