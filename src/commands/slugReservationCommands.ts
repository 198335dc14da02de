import { ApiError } from '../domain/errors/apiError.ts';
import { slugSchema } from '../domain/slugs/slug.ts';
import { type SlugScope, slugReservation, slugReservationStream } from '../domain/slugs/slugReservation.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

export function validateSlug(scope: SlugScope, slug: string) {
  const parsed = slugSchema.safeParse(slug);
  if (!parsed.success) throw new ApiError('SLUG_INVALID', `The ${scope} slug '${slug}' ${parsed.error.issues[0]!.message}`);
}

/**
 * A reservation whose owner stream is still empty after this long belongs to a creation that died
 * between its two appends; a creation in flight takes milliseconds.
 */
export const ABANDONED_RESERVATION_MS = 30_000;

/**
 * Reserves a slug for `newId` and returns the id that will own it. If an earlier creation reserved
 * the slug and died before writing its aggregate (the owner's stream is still empty well after the
 * reservation), that id is returned so the creation is completed instead of the slug being lost.
 */
export async function reserveSlug(
  deps: CommandDependencies,
  scope: SlugScope,
  parentId: string | null,
  slug: string,
  newId: string,
  ownerStream: (id: string) => string,
  metadata: CommandMetadata,
): Promise<string> {
  validateSlug(scope, slug);
  try {
    await handleCommand(deps, slugReservationStream(scope, parentId, slug), slugReservation, { type: 'ReserveSlug', data: { scope, parentId, slug, ownerId: newId } }, metadata);
    return newId;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'SLUG_TAKEN') throw error;
    const [reservation] = await deps.eventStore.readStream(slugReservationStream(scope, parentId, slug), { maxCount: 1 });
    const reserved = reservation ? decodeRecorded(reservation) : undefined;
    if (!reservation || reserved?.type !== 'SlugReserved') throw error;
    const owner = reserved.data.ownerId;
    const age = deps.now().getTime() - Date.parse(reservation.metadata.occurredAt);
    if (age > ABANDONED_RESERVATION_MS && !(await deps.eventStore.streamExists(ownerStream(owner)))) return owner;
    throw error;
  }
}
