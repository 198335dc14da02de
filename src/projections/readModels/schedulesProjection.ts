import type { Transaction } from 'kysely';
import { nextFiring } from '../../domain/schedules/cronTimes.ts';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { Projection } from '../projection.ts';
import type { ReadModels } from '../readModelSchema.ts';

type ScheduleEventOf<T extends DomainEvent['type']> = Extract<DomainEvent, { type: T }>;

/**
 * Schedules by flow, with the time each is next due: the schedule sweep's index (the schedule's
 * stream decides what fires; this only says where to look). Firings and skips apply once: each
 * moves `accounted_until` forward, and one at or before it is one already applied.
 */
export const schedulesProjection: Projection = {
  name: 'schedules',
  handles: ['ScheduleAdded', 'SchedulePaused', 'ScheduleResumed', 'ScheduleRemoved', 'ScheduleFired', 'ScheduleFiringsSkipped'],
  tables: ['schedules'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'ScheduleAdded': {
        const d = event.data;
        await trx
          .insertInto('schedules')
          .values({
            id: d.scheduleId, organization_id: d.organizationId, project_id: d.projectId, flow_id: d.flowId, cron: d.cron, timezone: d.timezone, missed: d.missed,
            callback_url: d.callbackUrl, status: 'active', created_at: occurredAt, accounted_until: d.firstAfter,
            next_firing_at: nextOf(d, d.scheduleId, d.firstAfter), last_fired_for: null, last_execution_id: null, last_error_code: null,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'SchedulePaused':
      case 'ScheduleRemoved':
        await trx.updateTable('schedules').set({ status: event.type === 'SchedulePaused' ? 'paused' : 'removed', next_firing_at: null }).where('id', '=', event.data.scheduleId).execute();
        return;
      case 'ScheduleResumed':
        return moveOn(trx, event, event.data.resumedAt, {});
      case 'ScheduleFired':
        return moveOn(trx, event, event.data.scheduledFor, { fired: 1, lastFiredFor: event.data.scheduledFor, lastExecutionId: event.data.executionId, lastErrorCode: event.data.error?.code ?? null });
      case 'ScheduleFiringsSkipped':
        return moveOn(trx, event, event.data.last, { skipped: event.data.count ?? 1 });
    }
  },
};

const nextOf = (cron: { cron: string; timezone: string }, scheduleId: string, after: string) => nextFiring({ cron: cron.cron, timezone: cron.timezone, seed: scheduleId }, new Date(after))?.toISOString() ?? null;

/** Moves a schedule's accounted time to `until` (when later), its counts and its next firing with it. */
async function moveOn(
  trx: Transaction<ReadModels>,
  event: ScheduleEventOf<'ScheduleResumed' | 'ScheduleFired' | 'ScheduleFiringsSkipped'>,
  until: string,
  change: { fired?: number; skipped?: number; lastFiredFor?: string; lastExecutionId?: string | null; lastErrorCode?: string | null },
) {
  const row = await trx.selectFrom('schedules').select(['cron', 'timezone', 'status', 'accounted_until']).where('id', '=', event.data.scheduleId).executeTakeFirst();
  if (!row) return;
  const resumed = event.type === 'ScheduleResumed';
  if (!resumed && new Date(until).getTime() <= row.accounted_until.getTime()) return; // applied already
  const accounted = new Date(Math.max(row.accounted_until.getTime(), new Date(until).getTime())).toISOString();
  const status = resumed ? 'active' : row.status;
  await trx
    .updateTable('schedules')
    .set((eb) => ({
      status,
      accounted_until: accounted,
      next_firing_at: status === 'active' ? nextOf(row, event.data.scheduleId, accounted) : null,
      fired_count: eb('fired_count', '+', change.fired ?? 0),
      skipped_count: eb('skipped_count', '+', change.skipped ?? 0),
      ...(change.lastFiredFor === undefined ? {} : { last_fired_for: change.lastFiredFor, last_execution_id: change.lastExecutionId ?? null, last_error_code: change.lastErrorCode ?? null }),
    }))
    .where('id', '=', event.data.scheduleId)
    .execute();
}
