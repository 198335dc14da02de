import type { Kysely } from 'kysely';
import type { AuthoringScope } from '../authoring/authoringScope.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { backtestPage } from '../queries/backtestQueries.ts';
import { sideOf } from './recordedRun.ts';

/**
 * One pair side by side: the recorded run and its replay, each with its input and whole result
 * read from its own stream, with the comparison the backtest recorded (a console opens this).
 */
export async function backtestPair(deps: { db: Kysely<ReadModels>; eventStore: EventStore }, scope: AuthoringScope, input: { backtestId: string; executionId: string }) {
  const page = await backtestPage(deps.db, scope, { backtestId: input.backtestId, executionId: input.executionId, limit: 1 });
  const pair = page.pairs[0];
  if (!pair) throw new ApiError('EXECUTION_NOT_FOUND', `backtest ${input.backtestId} did not replay run ${input.executionId}`);
  const [original, candidate] = await Promise.all([readRunHistory(deps.eventStore, pair.executionId), readRunHistory(deps.eventStore, pair.backtestExecutionId)]);
  const requested = original.history.requested;
  return {
    ...pair,
    input: requested ? { message: requested.message, parameters: requested.parameters, attachments: requested.attachments } : null,
    originalRun: sideOf(original.history),
    candidateRun: candidate.history.requested ? sideOf(candidate.history) : null,
  };
}
