import type { DomainEvent } from '../domain/domainEvent.ts';
import type { ProjectionContext } from './projection.ts';

type Handed = { event: DomainEvent; context: ProjectionContext };

/**
 * A batch with the sealed events `wanted` picks opened (ProjectionContext.open, their keys looked up
 * together) and every other entry as it was handed over: a projection opens only what it keeps. An
 * entry stored unsealed has nothing to open and is never asked for. Most batches open nothing: no
 * promise per event then.
 */
export async function openedWhere(handed: readonly Handed[], wanted: (entry: Handed) => boolean): Promise<readonly Handed[]> {
  const toOpen = handed.filter((entry) => entry.context.recorded.metadata.sealed === true && wanted(entry));
  if (toOpen.length === 0) return handed;
  const opened = new Map(await Promise.all(toOpen.map(async (entry) => [entry, await entry.context.open()] as const)));
  return handed.map((entry) => {
    const event = opened.get(entry);
    return event ? { ...entry, event } : entry;
  });
}
