import type { RunMode } from '../domain/execution/executionEvents.ts';
import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { RunStatus } from '../domain/execution/runStatus.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { listRuns } from '../queries/runQueries.ts';
import { type AuthoringScope, requireFlow } from './flowAuthoring.ts';

/** A flow's runs of every kind (sync, jobs, step, test), newest first, for an author in scope: what the flow did lately. */
export async function listRunsOfFlow(
  deps: { commands: CommandDependencies; db: Kysely<ReadModels> },
  scope: AuthoringScope,
  input: { flowId: string; status?: RunStatus[]; mode?: RunMode[]; limit: number; cursor?: string },
) {
  const flow = await requireFlow(deps.commands, scope, input.flowId);
  const listed = await listRuns(deps.db, { flowId: flow.flowId, ...(input.status ? { status: input.status } : {}), ...(input.mode ? { mode: input.mode } : {}) }, { limit: input.limit, ...(input.cursor ? { cursor: input.cursor } : {}) });
  return {
    runs: listed.items.map((run) => ({
      flow_run_id: run.executionId,
      version_number: run.versionNumber,
      mode: run.mode,
      status: run.status,
      failure_code: run.failureCode,
      test_run_id: run.testRunId,
      started_via: run.startedVia,
      schedule_id: run.scheduleId,
      created_at: run.createdAt,
      ended_at: run.endedAt,
      duration_ms: run.durationMs,
    })),
    next_cursor: listed.nextCursor,
  };
}
