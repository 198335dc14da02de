import { ApiError } from '../domain/errors/apiError.ts';
import { slugSchema } from '../domain/slugs/slug.ts';
import { type SlugScope, slugReservation, slugReservationStream } from '../domain/slugs/slugReservation.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';
import { ownerOfSlug } from './slugLookup.ts';

export function validateSlug(scope: SlugScope, slug: string) {
  const parsed = slugSchema.safeParse(slug);
  if (!parsed.success) throw new ApiError('SLUG_INVALID', `The ${scope} slug '${slug}' ${parsed.error.issues[0]!.message}`);
}

/**
 * Reserves a slug for `newId` and returns the id that will own it. If an earlier creation reserved
 * the slug and then failed before writing its aggregate (the owner's stream is empty), that id is
 * returned so the creation can be completed instead of the slug being lost.
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
    const owner = await ownerOfSlug(deps.eventStore, scope, parentId, slug);
    if (owner && (await deps.eventStore.readStream(ownerStream(owner))).length === 0) return owner;
    throw error;
  }
}
