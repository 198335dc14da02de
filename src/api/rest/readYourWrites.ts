import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { ReadNeed, ReadRouting } from '../../database/readRouting.ts';
import type { Principal } from '../../domain/events/eventMetadata.ts';
import { readsAfterChanges } from '../readsAfterChanges.ts';

/** The header a write's answer carries and a read may send back: a log position. */
export const POSITION_HEADER = 'seqflow-position';

/**
 * A caller reads its own writes, even where polls and listings are served by read replicas:
 * - every successful write under /seq (any method but GET and HEAD) answers `Seqflow-Position`,
 *   the highest log position this process had appended by then (at least the write's own);
 * - a poll or a listing reads after the position it sends in `Seqflow-Position` or, without one,
 *   after the last position this process answered to the same API key (a caller whose requests
 *   go to several API processes sends the header: the TypeScript client does);
 * - the read waits for the read models to show that position, on a replica or on the primary,
 *   SEQFLOW_READ_WAIT_MS at most (src/database/readRouting.ts).
 */
export function readYourWrites(deps: { appendedPosition: () => number; reads: Pick<ReadRouting, 'within'> }) {
  const changes = readsAfterChanges(deps);
  const callerOf = (request: FastifyRequest): Principal | undefined => (request.apiKey ? { kind: 'apiKey', id: request.apiKey.keyId } : undefined);
  return {
    /** Adds the position to the answers of writes (a hook on the /seq routes). */
    install(app: FastifyInstance) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) return payload;
        const caller = callerOf(request);
        reply.header(POSITION_HEADER, String(caller ? changes.changed(caller) : deps.appendedPosition()));
        return payload;
      });
    },
    /**
     * Runs `read` where its queries may go to a replica that shows the caller's writes to
     * `projections`; with none, on any replica as it is (a poll: a job its row does not show ended
     * is read from its own stream, on the primary).
     */
    read<T>(request: FastifyRequest, projections: ReadNeed['projections'], read: () => Promise<T>): Promise<T> {
      return changes.read(callerOf(request), read, { projections, after: positionSent(request.headers[POSITION_HEADER]) });
    },
  };
}

export type ReadYourWrites = ReturnType<typeof readYourWrites>;

function positionSent(header: string | string[] | undefined): number {
  if (header === undefined) return 0;
  const text = (Array.isArray(header) ? header.at(-1)! : header).trim();
  if (!/^\d{1,15}$/.test(text)) throw new ApiError('VALIDATION_FAILED', 'Seqflow-Position: send the non-negative integer a write answered with');
  return Number(text);
}
