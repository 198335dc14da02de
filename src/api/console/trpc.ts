import { TRPCError, initTRPC } from '@trpc/server';
import { ApiError } from '../../domain/errors/apiError.ts';
import { errorStatus } from '../rest/errorStatus.ts';
import { unstorableInput } from '../../domain/validation/storableJson.ts';
import type { ConsoleContext } from './consoleContext.ts';

const t = initTRPC.context<ConsoleContext>().create({
  // Never a stack in an answer, whatever NODE_ENV says: it carries the error's own text.
  isDev: false,
  // Live subscriptions (SSE) send a ping every 15 s, so proxies keep the stream open and a client
  // that hears nothing for 30 s reconnects, resuming from the last event id it got.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 30_000 } },
  // Plain JSON, no transformer: any tRPC client (or curl) can call the console. The service's own
  // error code travels in `data.detail`, as the REST API's `{detail: {code, message}}`.
  errorFormatter: ({ shape, error }) => {
    const cause = error.cause instanceof ApiError ? error.cause : null;
    return { ...shape, data: { ...shape.data, detail: cause ? { code: cause.code, message: cause.message, ...cause.extra } : null } };
  },
});

/** An ApiError thrown by a service becomes the tRPC error of the same status (404 NOT_FOUND, 409 CONFLICT...). */
const trpcCodeOf = (status: number): TRPCError['code'] =>
  status === 400 ? 'BAD_REQUEST' : status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : status === 409 ? 'CONFLICT' : status === 422 ? 'UNPROCESSABLE_CONTENT' : status === 429 ? 'TOO_MANY_REQUESTS' : 'INTERNAL_SERVER_ERROR';

const trpcErrorOf = (cause: ApiError) => new TRPCError({ code: trpcCodeOf(errorStatus[cause.code]), message: `${cause.code}: ${cause.message}`, cause });

const mapErrors = t.middleware(async ({ next, getRawInput }) => {
  // The same rule as the REST API's request guards: text the log cannot store is refused, naming it.
  const refusal = unstorableInput(await getRawInput(), 'input');
  if (refusal) throw trpcErrorOf(refusal);
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) throw trpcErrorOf(result.error.cause);
  return result;
});

/**
 * A subscription's errors arise while it is iterated, after the middleware has returned: they are
 * mapped here, so a client gets NOT_FOUND (and stops) rather than an internal error it would retry.
 */
export async function* withApiErrors<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw error instanceof ApiError ? trpcErrorOf(error) : error;
  }
}

export const router = t.router;

/**
 * Every console procedure: an operator must be signed in; the operator is the principal of what it
 * does. A query reads where read replicas may serve it, after the operator's own changes; a mutation
 * that succeeded is such a change (src/api/readsAfterChanges.ts). Subscriptions follow the log itself.
 */
export const operatorProcedure = t.procedure.use(mapErrors).use(async ({ ctx, type, next }) => {
  const operator = ctx.operator;
  if (!operator) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in as an operator: open a link from `seqflow console link`, or send an OAuth token of a subject granted `seqflow operator grant`' });
  const go = () => next({ ctx: { ...ctx, operator, metadata: { principal: operator, requestId: ctx.requestId } } });
  if (type === 'query') return ctx.services.operatorReads.read(operator, go);
  const result = await go();
  if (type === 'mutation' && result.ok) ctx.services.operatorReads.changed(operator);
  return result;
});
