import type { Transaction } from 'kysely';
import type { DomainEvent, DomainEventType } from '../domain/domainEvent.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';
import type { ReadModels } from './readModelSchema.ts';

export interface ProjectionContext {
  recorded: RecordedEvent;
  /** When the command that caused the event happened: timestamps in rows come from here, so a rebuild reproduces them. */
  occurredAt: string;
  /**
   * The event with its sealed personal data opened, for a type the projection `opens`; the event it
   * was handed holds the sealed fields at their erased values. Called in one turn for several events,
   * their keys are looked up together.
   */
  open(): Promise<DomainEvent>;
}

/**
 * A read model fed from the log. `apply` must be idempotent (applying an event twice leaves the
 * same rows) and write only through `trx`, which also moves the projection's checkpoint.
 */
export interface Projection {
  name: string;
  handles: readonly DomainEventType[];
  /**
   * The handled events whose sealed personal data it reads (src/domain/privacy/sealedFields.ts),
   * through `context.open`, only where it keeps them (the jobs projection: only in runs that are
   * jobs). Every event is handed over with its sealed fields at their erased values (null, {}, []).
   */
  opens?: readonly DomainEventType[];
  tables: readonly (keyof ReadModels)[];
  apply(trx: Transaction<ReadModels>, event: DomainEvent, context: ProjectionContext): Promise<void>;
  /**
   * All of a batch's events for this projection at once, in log order, with the same result as
   * `apply` on each in turn: a few multi-row statements instead of some per event. Optional; when it
   * fails, the batch is applied again event by event, so a stall names the event that failed.
   */
  applyAll?(trx: Transaction<ReadModels>, events: readonly { event: DomainEvent; context: ProjectionContext }[]): Promise<void>;
}

/**
 * Projections leased together (a runner): a worker process holds a group's lease and applies its
 * projections (src/leases/projectionLeases.ts). No projection reads another's tables, so any grouping is correct.
 */
export interface ProjectionGroup {
  name: string;
  projections: readonly Projection[];
}
