import type { EventStore } from '../eventstore/eventStore.ts';
import type { ProjectionRunner } from './projectionRunner.ts';

/** Resolves once the read models show everything the log held when it was called. */
export type ReadModelsCurrent = () => Promise<void>;

/**
 * What a use case that decides from the read models (an erasure's closure) waits for first. A
 * process that runs no projections of its own (the CLI) brings them up to the log's head itself;
 * a server waits, at most `waitMs`, for whichever process runs them, and then fails with
 * PROJECTION_TIMEOUT (503): deciding from a read model that is behind would leave something out.
 */
export function readModelsCurrent(
  projections: Pick<ProjectionRunner, 'catchUp' | 'waitForPosition'>,
  eventStore: Pick<EventStore, 'headPosition'>,
  how: { projectsItself: boolean; waitMs: number },
): ReadModelsCurrent {
  if (how.projectsItself) return () => projections.catchUp(how.waitMs);
  return async () => projections.waitForPosition(await eventStore.headPosition(), how.waitMs);
}
