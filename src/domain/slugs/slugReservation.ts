import { z } from 'zod';
import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import { aName, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/**
 * Slugs are unique within their parent. Uniqueness across aggregates is enforced by the log itself:
 * each (scope, parent, slug) has its own stream, and the first reservation is appended with
 * "no stream" as the expected state, so two concurrent creations cannot both win.
 */
export const slugScopes = ['organization', 'project', 'flow'] as const;
export type SlugScope = (typeof slugScopes)[number];

export const SlugReserved = defineEvent(
  'SlugReserved',
  1,
  z.object({ scope: z.enum(slugScopes), parentId: anId().nullable(), slug: aName(), ownerId: anId() }),
);
export type SlugReservationEvent = EventOf<typeof SlugReserved>;

export type SlugReservationState = { ownerId: string | null };

export type ReserveSlug = { type: 'ReserveSlug'; data: { scope: SlugScope; parentId: string | null; slug: string; ownerId: string } };

export const slugReservationStream = (scope: SlugScope, parentId: string | null, slug: string) =>
  parentId === null ? `slug-${scope}-${slug}` : `slug-${scope}-${parentId}-${slug}`;

export const slugReservation: Decider<ReserveSlug, SlugReservationEvent, SlugReservationState> = {
  initialState: () => ({ ownerId: null }),
  evolve: (_state, event) => ({ ownerId: event.data.ownerId }),
  decide: (command, state) => {
    if (state.ownerId === command.data.ownerId) return [];
    if (state.ownerId !== null) {
      throw new ApiError('SLUG_TAKEN', `The ${command.data.scope} slug '${command.data.slug}' is already taken`);
    }
    return [{ type: 'SlugReserved', data: command.data }];
  },
};
