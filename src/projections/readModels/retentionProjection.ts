import type { Projection } from '../projection.ts';

/** Retention periods by organization and project ('' for the organization's own). */
export const retentionProjection: Projection = {
  name: 'retention',
  handles: ['RetentionPeriodSet'],
  tables: ['retention_periods'],
  async apply(trx, event, { occurredAt }) {
    if (event.type !== 'RetentionPeriodSet') return;
    const { organizationId, projectId, runDays } = event.data;
    await trx
      .insertInto('retention_periods')
      .values({ organization_id: organizationId, project_id: projectId ?? '', run_days: runDays, set_at: occurredAt })
      .onConflict((oc) => oc.columns(['organization_id', 'project_id']).doUpdateSet({ run_days: runDays, set_at: occurredAt }))
      .execute();
  },
};
