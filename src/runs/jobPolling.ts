import { failureText } from '../domain/execution/failureMessage.ts';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { JobView } from '../domain/execution/jobView.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import { cancelRun } from '../execution/cancelRun.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { jobViewOfRow } from '../projections/readModels/jobsProjection.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { type RunCaller, originOf } from './runCaller.ts';

/** What reading and cancelling a caller's jobs needs. */
export interface JobReading {
  flows: Pick<FlowCatalog, 'findFlowForCaller'>;
  db: Kysely<ReadModels>;
  eventStore: EventStore;
}

/**
 * The poll's answer: `result` only when completed, the failure's fields only when failed;
 * `dataErasedAt` only once the run's data was erased (its result then reads null).
 */
export function presentJob(view: JobView) {
  const { executionId, flowId, status, createdAt, startedAt, completedAt, durationMs } = view;
  return {
    executionId,
    flowId,
    status,
    createdAt,
    startedAt,
    completedAt,
    durationMs,
    ...(status === 'completed' ? { result: view.result } : {}),
    ...(status === 'failed' ? { failureReason: view.failureReason, errorCode: view.errorCode, errorMessage: failureText({ message: view.errorMessage ?? '', detail: view.errorDetail }) } : {}),
    ...(view.dataErasedAt === null ? {} : { dataErasedAt: view.dataErasedAt }),
    ...(view.waitingFor === null || status === 'completed' || status === 'failed' ? {} : { waitingFor: view.waitingFor }),
  };
}

/** A job's state from its own stream (the run history's job view, which the projection evolves its rows with): the answer while the read model has not caught up. */
async function jobFromStream(eventStore: EventStore, executionId: string, flowId: string) {
  const view = (await readRunHistory(eventStore, executionId)).history.job;
  if (!view || view.flowId !== flowId) return undefined;
  return presentJob(view);
}

/** A job of the caller's flow: the read model's row once it has ended, else the job's own stream. */
export async function pollJob(deps: JobReading, caller: Pick<RunCaller, 'projectId'>, job: FlowSlugs & { executionId: string }) {
  const flow = await deps.flows.findFlowForCaller(job, caller.projectId);
  const row = await deps.db.selectFrom('jobs').selectAll().where('execution_id', '=', job.executionId).where('flow_id', '=', flow.flowId).executeTakeFirst();
  if (!row || row.status === 'started' || row.status === 'running') {
    // Not projected yet, or not ended as the row says: the run's own stream answers. A poll right after
    // POST never 404s, and a poll never goes back from the end an earlier poll read in the stream to a
    // row the projection has not moved on yet (polls that did were seen under load).
    const view = await jobFromStream(deps.eventStore, job.executionId, flow.flowId);
    if (view) return view;
    if (!row) throw new ApiError('EXECUTION_NOT_FOUND', `No job ${job.executionId} of flow '${job.flow}'`);
  }
  return presentJob(jobViewOfRow(row));
}

/** Cancels a job of the caller's flow that has not ended (failed, reason `cancelled`); answers the job as its poll now shows it. */
export async function cancelJob(deps: JobReading & { commands: CommandDependencies }, caller: RunCaller, job: FlowSlugs & { executionId: string; reason: string | undefined }) {
  const flow = await deps.flows.findFlowForCaller(job, caller.projectId);
  await cancelRun(deps.commands, { executionId: job.executionId, reason: job.reason, jobOf: flow.flowId }, originOf(caller));
  return (await jobFromStream(deps.eventStore, job.executionId, flow.flowId))!;
}
