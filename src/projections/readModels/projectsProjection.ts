import type { Projection } from '../projection.ts';

export const projectsProjection: Projection = {
  name: 'projects',
  handles: ['ProjectCreated'],
  tables: ['projects'],
  async apply(trx, event, { occurredAt }) {
    if (event.type !== 'ProjectCreated') return;
    const { projectId, organizationId, slug, name } = event.data;
    await trx
      .insertInto('projects')
      .values({ id: projectId, organization_id: organizationId, slug, name, created_at: occurredAt })
      .onConflict((oc) => oc.column('id').doUpdateSet({ slug, name }))
      .execute();
  },
};
