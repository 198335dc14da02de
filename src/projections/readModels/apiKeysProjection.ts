import type { Projection } from '../projection.ts';

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  handles: ['ApiKeyCreated', 'ApiKeyRevoked'],
  tables: ['api_keys'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'ApiKeyCreated': {
        const { keyId, projectId, organizationId, environment, keyPrefix, secretHash } = event.data;
        await trx
          .insertInto('api_keys')
          .values({
            key_id: keyId,
            project_id: projectId,
            organization_id: organizationId,
            environment,
            key_prefix: keyPrefix,
            secret_hash: secretHash,
            created_at: occurredAt,
            revoked_at: null,
          })
          .onConflict((oc) => oc.column('key_id').doNothing())
          .execute();
        return;
      }
      case 'ApiKeyRevoked':
        await trx.updateTable('api_keys').set({ revoked_at: occurredAt }).where('key_id', '=', event.data.keyId).execute();
        return;
    }
  },
};
