import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { flowSlugsByIds } from './flowQueries.ts';

export interface ScheduleFilters {
  organizationId?: string;
  projectId?: string;
  flowId?: string;
  /** Removed schedules too (left out unless asked for). */
  includeRemoved?: boolean;
}

/** The most schedules one listing returns. */
export const MAX_LISTED_SCHEDULES = 500;

/** Schedules as the read model has them, oldest first, each with its flow's slugs, its next firing and its last. */
export async function listSchedules(db: Kysely<ReadModels>, filters: ScheduleFilters) {
  let query = db.selectFrom('schedules').selectAll();
  if (filters.organizationId) query = query.where('organization_id', '=', filters.organizationId);
  if (filters.projectId) query = query.where('project_id', '=', filters.projectId);
  if (filters.flowId) query = query.where('flow_id', '=', filters.flowId);
  if (!filters.includeRemoved) query = query.where('status', '!=', 'removed');
  const rows = await query.orderBy('created_at').orderBy('id').limit(MAX_LISTED_SCHEDULES).execute();
  const slugs = await flowSlugsByIds(db, [...new Set(rows.map((r) => r.flow_id))]);
  return rows.map((r) => ({
    scheduleId: r.id,
    flowId: r.flow_id,
    flow: slugs.get(r.flow_id) ?? null,
    cron: r.cron,
    timezone: r.timezone,
    missed: r.missed,
    callbackUrl: r.callback_url,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    nextFiringAt: r.next_firing_at?.toISOString() ?? null,
    lastFiredFor: r.last_fired_for?.toISOString() ?? null,
    lastExecutionId: r.last_execution_id,
    lastErrorCode: r.last_error_code,
    firedCount: r.fired_count,
    skippedCount: r.skipped_count,
  }));
}
