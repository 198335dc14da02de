import { ApiError } from '../domain/errors/apiError.ts';
import { type SlugScope, slugReservation, slugReservationStream } from '../domain/slugs/slugReservation.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { loadStream } from '../eventstore/streams.ts';

/** The id that owns a slug, read from its reservation stream (strongly consistent), or null. */
export async function ownerOfSlug(eventStore: EventStore, scope: SlugScope, parentId: string | null, slug: string): Promise<string | null> {
  const { state } = await loadStream(eventStore, slugReservationStream(scope, parentId, slug), slugReservation);
  return state.ownerId;
}

/** Resolves a slug to an id whose own stream exists; a reservation left by a crashed creation does not count. */
export async function requireSlugOwner(
  eventStore: EventStore,
  scope: SlugScope,
  parentId: string | null,
  slug: string,
  ownerStream: (id: string) => string,
): Promise<string> {
  const owner = await ownerOfSlug(eventStore, scope, parentId, slug);
  if (owner && (await eventStore.streamExists(ownerStream(owner)))) return owner;
  const code = scope === 'organization' ? 'ORGANIZATION_NOT_FOUND' : scope === 'project' ? 'PROJECT_NOT_FOUND' : 'FLOW_NOT_FOUND';
  throw new ApiError(code, `No ${scope} with slug '${slug}'`);
}
