import type { Transaction } from 'kysely';
import type { DomainEvent } from '../../domain/domainEvent.ts';
import type { Projection, ProjectionContext } from '../projection.ts';
import type { ReadModels } from '../readModelSchema.ts';

/**
 * A batch's new keys in one multi-row insert (a replayed one adds nothing), then its revocations in
 * log order: a key is always created before it is revoked, so inserting first gives what applying
 * event by event gives.
 */
async function applyAll(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent; context: ProjectionContext }[]) {
  const created = events.flatMap(({ event, context }) =>
    event.type === 'ApiKeyCreated'
      ? [{ key_id: event.data.keyId, project_id: event.data.projectId, organization_id: event.data.organizationId, environment: event.data.environment, key_prefix: event.data.keyPrefix, secret_hash: event.data.secretHash, created_at: context.occurredAt, revoked_at: null }]
      : [],
  );
  if (created.length > 0) await trx.insertInto('api_keys').values(created).onConflict((oc) => oc.column('key_id').doNothing()).execute();
  for (const { event, context } of events) {
    if (event.type === 'ApiKeyRevoked') await trx.updateTable('api_keys').set({ revoked_at: context.occurredAt }).where('key_id', '=', event.data.keyId).execute();
  }
}

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  handles: ['ApiKeyCreated', 'ApiKeyRevoked'],
  tables: ['api_keys'],
  apply: (trx, event, context) => applyAll(trx, [{ event, context }]),
  applyAll,
};
