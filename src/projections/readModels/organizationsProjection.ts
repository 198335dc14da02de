import type { Projection } from '../projection.ts';

export const organizationsProjection: Projection = {
  name: 'organizations',
  handles: ['OrganizationCreated', 'MemberAdded', 'MemberRoleChanged'],
  tables: ['organizations', 'members'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'OrganizationCreated': {
        const { organizationId, slug, name } = event.data;
        await trx
          .insertInto('organizations')
          .values({ id: organizationId, slug, name, created_at: occurredAt })
          .onConflict((oc) => oc.column('id').doUpdateSet({ slug, name }))
          .execute();
        return;
      }
      case 'MemberAdded':
      case 'MemberRoleChanged': {
        const { organizationId, userSubject, role } = event.data;
        await trx
          .insertInto('members')
          .values({ organization_id: organizationId, user_subject: userSubject, role, added_at: occurredAt, updated_at: occurredAt })
          .onConflict((oc) => oc.columns(['organization_id', 'user_subject']).doUpdateSet({ role, updated_at: occurredAt }))
          .execute();
        return;
      }
    }
  },
};
