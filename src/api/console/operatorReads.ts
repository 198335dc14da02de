import { LRUCache } from 'lru-cache';
import type { ReadRouting } from '../../database/readRouting.ts';
import type { Principal } from '../../domain/events/eventMetadata.ts';
import { allProjections } from '../../projections/allProjections.ts';

/** Operators whose last change this process remembers, at most. */
const REMEMBERED_OPERATORS = 1_000;

/** A console read waits for every read model: its views read many of them. */
const ALL_READ_MODELS = allProjections.map((projection) => projection.name);

/**
 * The console's reads may be served by read replicas (`DATABASE_READ_URLS`) while an operator still
 * sees their own changes: after a change (a mutation that succeeded), the operator's reads wait for
 * the read models to show the log position this process had appended by then, on a replica or else
 * the primary, `SEQFLOW_READ_WAIT_MS` at most (src/database/readRouting.ts). The console is served by
 * one process per listener, so this process's memory of the operator's last change is enough.
 */
export function operatorReads(deps: { appendedPosition: () => number; reads: Pick<ReadRouting, 'within'> }) {
  const lastChange = new LRUCache<string, number>({ max: REMEMBERED_OPERATORS });
  const keyOf = (operator: Principal) => `${operator.kind}:${operator.id}`;
  return {
    /** The operator changed something: their later reads show it. */
    changed(operator: Principal) {
      const key = keyOf(operator);
      lastChange.set(key, Math.max(deps.appendedPosition(), lastChange.get(key) ?? 0));
    },
    /** Runs `read` with its read-model queries on a replica that shows the operator's last change. */
    read<T>(operator: Principal, read: () => Promise<T>): Promise<T> {
      return deps.reads.within({ after: lastChange.get(keyOf(operator)) ?? 0, projections: ALL_READ_MODELS }, read);
    },
  };
}

export type OperatorReads = ReturnType<typeof operatorReads>;
