import type { Logger } from 'pino';
import { ApiError } from '../domain/errors/apiError.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { countBlocks } from '../domain/flows/flowDefinition.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import type { FollowedRun } from './followRun.ts';
import type { RunCaller } from './runCaller.ts';
import type { RunStarting } from './runDependencies.ts';
import type { RunInput } from './runInput.ts';
import { prepareRun } from './startRun.ts';

/**
 * A step-through run (/step), fresh or resumed: every check first (a refusal is an error, nothing
 * started); then the run goes on its own, owned by the service rather than by the caller's
 * connection (it finishes and is recorded even if the caller leaves). Answers once the run has
 * its first event, with what a follower needs.
 */
export async function startStepRun(deps: RunStarting & { logger: Pick<Logger, 'error'> }, caller: RunCaller, slugs: FlowSlugs, input: RunInput): Promise<FollowedRun> {
  const { flow, run } = await prepareRun(deps, caller, slugs, input, 'step');
  // Listened to before the run starts, so its first reply is streamed from its first piece.
  const tokens = deps.engine.updates.tokens.open(run.executionId);
  const outcome = run.start();
  deps.lifecycle.follow(run.executionId, outcome);
  outcome.catch((error: unknown) => deps.logger.error({ err: error, executionId: run.executionId }, 'step-through run failed'));
  // A run that cannot even start fails here, before anything is streamed.
  try {
    await run.started;
  } catch (error) {
    tokens.close();
    throw error;
  }
  return { executionId: run.executionId, afterRevision: run.afterRevision, flowId: flow.flowId, blockCount: countBlocks(flow.steps), outcome, tokens };
}

/** A run of this flow to follow again after the last event id its reader saw (none: from its start); EXECUTION_NOT_FOUND for any other id. */
export async function findRunToFollow(
  deps: { flows: Pick<FlowCatalog, 'findExecutableFlow'>; eventStore: Pick<EventStore, 'readStream'> },
  caller: Pick<RunCaller, 'projectId'>,
  run: FlowSlugs & { executionId: string; lastEventId: unknown },
): Promise<FollowedRun> {
  const flow = await deps.flows.findExecutableFlow(run, caller.projectId);
  const [first] = await deps.eventStore.readStream(executionStream(run.executionId), { maxCount: 1 });
  const requested = first ? decodeRecorded(first) : undefined;
  if (requested?.type !== 'ExecutionRequested' || requested.data.flowId !== flow.flowId) throw new ApiError('EXECUTION_NOT_FOUND', `No run ${run.executionId} of flow '${run.flow}'`);
  // A revision, or half of one for the start a completion tells (followRun.ts).
  const valid = run.lastEventId === undefined || (typeof run.lastEventId === 'string' && /^-?\d+(\.5)?$/.test(run.lastEventId) && Number(run.lastEventId) >= -1);
  if (!valid) throw new ApiError('REQUEST_INVALID', 'Last-Event-ID must be an event id of this stream');
  const afterRevision = run.lastEventId === undefined ? -1 : Number(run.lastEventId);
  return { executionId: run.executionId, afterRevision, flowId: flow.flowId, blockCount: requested.data.blockCount };
}
