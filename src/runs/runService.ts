import type { ErasureMatch } from '../domain/execution/executionEvents.ts';
import type { Logger } from 'pino';
import type { ApiError } from '../domain/errors/apiError.ts';
import type { StoredResponse } from '../domain/idempotency/idempotencyKey.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { type IdempotentAnswering, type IdempotentCall, answerOnce } from './answerOnce.ts';
import { type FollowedRun, followRun } from './followRun.ts';
import { type JobReading, cancelJob, pollJob } from './jobPolling.ts';
import { type RunCaller, originOf } from './runCaller.ts';
import type { RunStarting } from './runDependencies.ts';
import type { RunInput } from './runInput.ts';
import type { CommandMetadata } from '../commands/commandHandler.ts';
import { cancelRun } from '../execution/cancelRun.ts';
import { eraseRunClosure } from '../execution/eraseRunClosure.ts';
import type { ReadModelsCurrent } from '../projections/readModelsCurrent.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';
import { rerunExecution } from '../audit/runRerun.ts';
import { type RunFilters, listRuns } from '../queries/runQueries.ts';
import { listFlowJobs, listFlowRuns } from './runListings.ts';
import { findRunToFollow, startStepRun } from './stepRun.ts';
import { startJob, startScheduledJob } from './startJob.ts';
import { executeRun } from './startRun.ts';

export type RunServiceDependencies = RunStarting &
  JobReading &
  IdempotentAnswering & {
    logger: Pick<Logger, 'warn' | 'error'>;
    runDataKeys: RunDataKeys;
    /** What an erasure waits for before it reads what was derived from the run. */
    readModelsCurrent: ReadModelsCurrent;
    /** The read models as polls and listings read them: on a read replica inside ReadRouting.within (src/database/readRouting.ts). */
    readDb: JobReading['db'];
  };

/**
 * The run use cases, bound once to their dependencies: what every transport (REST, MCP, the
 * console, the CLI) starts, follows, polls, cancels and lists runs with. A transport only turns
 * its requests into these calls' plain inputs and a caller, and their answers into its own.
 */
export function createRunService(deps: RunServiceDependencies) {
  const following = { eventStore: deps.eventStore, updates: deps.engine.updates };
  const reading = { ...deps, db: deps.readDb };
  const erasing = { ...deps.commands, runDataKeys: deps.runDataKeys, db: deps.db, readModelsCurrent: deps.readModelsCurrent };
  return {
    /** A sync run, answered when it completes, pauses or fails. */
    execute: (caller: RunCaller, slugs: FlowSlugs, input: RunInput) => executeRun(deps, caller, slugs, input),
    /** A step-through run, started and left to go on: follow it with `follow`. */
    startStep: (caller: RunCaller, slugs: FlowSlugs, input: RunInput) => startStepRun(deps, caller, slugs, input),
    findRunToFollow: (caller: RunCaller, run: FlowSlugs & { executionId: string; lastEventId: unknown }) => findRunToFollow(deps, caller, run),
    follow: (run: FollowedRun, signal: AbortSignal, options: { extended?: boolean } = {}) => followRun(following, run, signal, options),
    startJob: (caller: RunCaller, slugs: FlowSlugs, input: RunInput) => startJob(deps, caller, slugs, input),
    /** A schedule's firing as a job (its id named by the firing): the schedule sweep's. */
    startScheduledJob: (firing: Parameters<typeof startScheduledJob>[1], slugs: FlowSlugs) => startScheduledJob(deps, firing, slugs),
    pollJob: (caller: RunCaller, job: FlowSlugs & { executionId: string }) => pollJob(reading, caller, job),
    cancelJob: (caller: RunCaller, job: FlowSlugs & { executionId: string; reason: string | undefined }) => cancelJob(deps, caller, job),
    listJobs: (caller: RunCaller, slugs: FlowSlugs, filters: Parameters<typeof listFlowJobs>[3], page: Parameters<typeof listFlowJobs>[4]) => listFlowJobs(reading, caller, slugs, filters, page),
    listRuns: (caller: RunCaller, slugs: FlowSlugs, filters: Parameters<typeof listFlowRuns>[3], page: Parameters<typeof listFlowRuns>[4]) => listFlowRuns(reading, caller, slugs, filters, page),
    /** An operator's cancel of any run that has not ended (a caller's is `cancelJob`). */
    cancel: (input: { executionId: string; reason?: string | undefined }, metadata: CommandMetadata) => cancelRun(deps.commands, input, metadata),
    /** Erases a run's personal data (an operator, or a caller's API key for a run of its flow: `flowOf`). */
    eraseData: (input: { executionId: string; reason: string; trigger?: 'request' | 'retention'; match?: ErasureMatch; projectOf?: string; flowOf?: string }, metadata: CommandMetadata) =>
      eraseRunClosure(erasing, input, metadata),
    /** A caller's erasure of a run of one of its project's flows. */
    eraseCallerRun: async (caller: RunCaller, run: FlowSlugs & { executionId: string; reason: string | undefined }) => {
      const flow = await deps.flows.findFlowForCaller(run, caller.projectId);
      return eraseRunClosure(erasing, { executionId: run.executionId, reason: run.reason ?? 'erasure requested with an API key', projectOf: caller.projectId, flowOf: flow.flowId }, originOf(caller));
    },
    /** A run again, on the version and input its log recorded (an operator's audit). */
    rerun: (executionId: string, metadata: CommandMetadata) => rerunExecution(deps.engine, { executionId }, metadata),
    /** Every run across organizations, with the operators' filters. */
    listAll: (filters: RunFilters, page: { limit: number; cursor?: string | undefined }) => listRuns(deps.db, filters, page),
    /** `handle` once per idempotency key; `logger` is where trouble with the key is logged (the request's own). */
    answerOnce: (caller: RunCaller, call: IdempotentCall, handle: () => Promise<StoredResponse>, answerOfFailure: (error: ApiError) => StoredResponse, logger: IdempotentAnswering['logger'] = deps.logger) =>
      answerOnce({ commands: deps.commands, leaseMs: deps.leaseMs, logger }, caller, call, handle, answerOfFailure),
  };
}

export type RunService = ReturnType<typeof createRunService>;
