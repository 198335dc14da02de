import { LRUCache } from 'lru-cache';
import { type OrganizationState, organization } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { LogWatch } from './logWatch.ts';

export interface KnownOrganization {
  state: OrganizationState;
  revision: number;
  position: number;
}

/**
 * Organizations folded from their streams, for what is read on every llm run and every delivery
 * attempt (the provider key, the webhook signing secret). Kept while the log watch runs: any event
 * of an organization's stream drops it (at once when this process wrote it). Ciphertext only: the
 * secrets are decrypted where they are used. One per runtime.
 */
export function createOrganizationStates(eventStore: EventStore, logWatch: LogWatch, options: { max?: number } = {}) {
  const states = new LRUCache<string, KnownOrganization>({ max: options.max ?? 10_000 });
  const prefix = organizationStream('');
  // Counts what the watch said, so a read that overlapped a change is not kept.
  let told = 0;
  logWatch.watch({
    wants: (change) => change.streamId.startsWith(prefix),
    changed: (change) => {
      told++;
      states.delete(change.streamId);
    },
    reset: () => {
      told++;
      states.clear();
    },
  });

  return {
    /** The organization's state with the stream revision and position it was folded at (`none`, revision -1, when it does not exist). */
    async load(organizationId: string): Promise<KnownOrganization> {
      const streamId = organizationStream(organizationId);
      const live = logWatch.live;
      const known = live ? states.get(streamId) : undefined;
      if (known) return known;
      const before = told;
      const { state, revision, position } = await loadStream(eventStore, streamId, organization);
      if (live && logWatch.live && told === before && revision >= 0) states.set(streamId, { state, revision, position });
      return { state, revision, position };
    },
  };
}

export type OrganizationStates = ReturnType<typeof createOrganizationStates>;
