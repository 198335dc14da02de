import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { listSchedules } from '../queries/scheduleQueries.ts';
import { type AuthoringScope, requireFlow } from './flowAuthoring.ts';

/** A flow's schedules for an author in scope (MCP `list_schedules`): when its jobs fire, and how the last firing went. */
export async function listSchedulesOfFlow(deps: { commands: CommandDependencies; db: Kysely<ReadModels> }, scope: AuthoringScope, input: { flowId: string }) {
  const flow = await requireFlow(deps.commands, scope, input.flowId);
  const schedules = await listSchedules(deps.db, { flowId: flow.flowId });
  return {
    schedules: schedules.map((s) => ({
      schedule_id: s.scheduleId,
      cron: s.cron,
      timezone: s.timezone,
      missed: s.missed,
      status: s.status,
      callback_url: s.callbackUrl,
      next_firing_at: s.nextFiringAt,
      last_fired_for: s.lastFiredFor,
      last_flow_run_id: s.lastExecutionId,
      last_error_code: s.lastErrorCode,
      fired_count: s.firedCount,
      skipped_count: s.skippedCount,
    })),
  };
}
