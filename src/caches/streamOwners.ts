import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';

/** Whose a stream is: its organization and, for a run's own streams and its deliveries, the run. */
export interface StreamOwner {
  organizationId: string | null;
  executionId: string | null;
}

const field = (data: unknown, name: string): string | null => {
  const value = (data as Record<string, unknown> | null)?.[name];
  return typeof value === 'string' ? value : null;
};

/**
 * Finds the owner of each event's stream for the live event filters. A stream's first events name
 * their organization and run (ExecutionRequested, DeliveryCreated, FlowCreated...), so what an
 * event says is learned; a stream first met in the middle (its opening events came before the
 * subscription's start) is looked up in the read models by its category. Bounded: a stream not seen
 * for a while is looked up again.
 */
export function createStreamOwners(db: Kysely<ReadModels>, maxStreams = 10_000) {
  const known = new LRUCache<string, StreamOwner>({ max: maxStreams });

  async function lookUp(streamId: string): Promise<StreamOwner> {
    const dash = streamId.indexOf('-');
    const category = streamId.slice(0, dash);
    const id = streamId.slice(dash + 1);
    if (category === 'org') return { organizationId: id, executionId: null };
    if (category === 'execution') {
      const row = await db.selectFrom('runs').select('organization_id').where('execution_id', '=', id).executeTakeFirst();
      return { organizationId: row?.organization_id ?? null, executionId: id };
    }
    if (category === 'delivery') {
      const row = await db.selectFrom('webhook_deliveries').select(['organization_id', 'execution_id']).where('id', '=', id).executeTakeFirst();
      return { organizationId: row?.organization_id ?? null, executionId: row?.execution_id ?? null };
    }
    if (category === 'flow') {
      const row = await db.selectFrom('flows').select('organization_id').where('id', '=', id).executeTakeFirst();
      return { organizationId: row?.organization_id ?? null, executionId: null };
    }
    return { organizationId: null, executionId: null };
  }

  return {
    async of(event: RecordedEvent): Promise<StreamOwner> {
      const said = { organizationId: field(event.data, 'organizationId'), executionId: field(event.data, 'executionId') };
      const cached = known.get(event.streamId);
      if (cached && cached.organizationId !== null) return cached;
      const owner = said.organizationId !== null ? said : { ...(await lookUp(event.streamId)), ...(said.executionId ? { executionId: said.executionId } : {}) };
      known.set(event.streamId, owner);
      return owner;
    },
  };
}
