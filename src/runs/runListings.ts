import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type JobFilters, listJobs } from '../queries/jobQueries.ts';
import { type RunFilters, listRuns } from '../queries/runQueries.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { presentJob } from './jobPolling.ts';
import type { RunCaller } from './runCaller.ts';

/** What a caller's listings need: its flows and the read models. */
export interface RunListing {
  flows: Pick<FlowCatalog, 'findFlowForCaller'>;
  db: Kysely<ReadModels>;
}

type Page = { limit: number; cursor?: string | undefined };

/** A flow's jobs, newest first, as their polls show them but without the result (a job's result can be large: its poll has it). */
export async function listFlowJobs(deps: RunListing, caller: Pick<RunCaller, 'projectId'>, slugs: FlowSlugs, filters: Omit<JobFilters, 'flowId'>, page: Page) {
  const flow = await deps.flows.findFlowForCaller(slugs, caller.projectId);
  const listed = await listJobs(deps.db, { ...filters, flowId: flow.flowId }, page);
  return {
    items: listed.items.map((job) => {
      const { result: _result, ...listed } = presentJob(job);
      return listed;
    }),
    nextCursor: listed.nextCursor,
  };
}

/** All of a flow's runs (sync, jobs, step, test), newest first, with the fields a caller sees. */
export async function listFlowRuns(deps: RunListing, caller: Pick<RunCaller, 'projectId'>, slugs: FlowSlugs, filters: Pick<RunFilters, 'status' | 'mode' | 'from' | 'to'>, page: Page) {
  const flow = await deps.flows.findFlowForCaller(slugs, caller.projectId);
  const listed = await listRuns(deps.db, { ...filters, projectId: caller.projectId, flowId: flow.flowId }, page);
  return {
    items: listed.items.map((run) => ({
      executionId: run.executionId,
      flowId: run.flowId,
      versionNumber: run.versionNumber,
      mode: run.mode,
      status: run.status,
      failureCode: run.failureCode,
      createdAt: run.createdAt,
      endedAt: run.endedAt,
      durationMs: run.durationMs,
      dataErasedAt: run.dataErasedAt,
      scheduleId: run.scheduleId,
    })),
    nextCursor: listed.nextCursor,
  };
}
