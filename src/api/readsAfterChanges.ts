import { LRUCache } from 'lru-cache';
import type { ReadRouting } from '../database/readRouting.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { allProjections } from '../projections/allProjections.ts';

/** Principals (operators, assistants' users, API keys) whose last change this process remembers, at most. */
const REMEMBERED_PRINCIPALS = 10_000;

/** Such a read waits for every read model: the console's views and the assistants' tools read many of them. */
const ALL_READ_MODELS = allProjections.map((projection) => projection.name);

/**
 * The console's queries and the assistants' reading tools may be served by read replicas
 * (`DATABASE_READ_URLS`) while an operator or an assistant still sees their own changes: after a
 * change (a console mutation, a tool that writes, that succeeded), the principal's reads wait for the
 * read models to show the log position this process had appended by then, on a replica or else the
 * primary, `SEQFLOW_READ_WAIT_MS` at most (src/database/readRouting.ts). A principal's changes are
 * remembered by the process that made them: a console listener is one process; an assistant whose
 * requests reach another API process reads there as that process's read models are (the MCP tools
 * that write answer once the primary's read models show the change).
 */
export function readsAfterChanges(deps: { appendedPosition: () => number; reads: Pick<ReadRouting, 'within'> }) {
  const lastChange = new LRUCache<string, number>({ max: REMEMBERED_PRINCIPALS });
  const keyOf = (principal: Principal) => JSON.stringify(principal);
  return {
    /** The principal changed something: their later reads show it. Answers the position they wait for. */
    changed(principal: Principal): number {
      const key = keyOf(principal);
      const position = Math.max(deps.appendedPosition(), lastChange.get(key) ?? 0);
      lastChange.set(key, position);
      return position;
    },
    /**
     * Runs `read` with its read-model queries on a replica that shows the principal's last change and
     * `after` (a position the caller sent back), in `projections` (every read model unless named); a
     * read naming none reads any replica as it is.
     */
    read<T>(principal: Principal | undefined, read: () => Promise<T>, need: { projections?: readonly string[]; after?: number } = {}): Promise<T> {
      const projections = need.projections ?? ALL_READ_MODELS;
      const last = principal === undefined ? 0 : (lastChange.get(keyOf(principal)) ?? 0);
      return deps.reads.within({ after: projections.length === 0 ? 0 : Math.max(need.after ?? 0, last), projections }, read);
    },
  };
}

export type ReadsAfterChanges = ReturnType<typeof readsAfterChanges>;
