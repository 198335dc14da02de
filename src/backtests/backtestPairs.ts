import type { Kysely } from 'kysely';
import type { AuthoringScope } from '../authoring/authoringScope.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { RunHistory } from '../domain/execution/runHistory.ts';
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
  return {
    ...pair,
    input: inputOf(original.history.requested),
    originalRun: sideOf(original.history),
    candidateRun: candidate.history.requested ? sideOf(candidate.history) : null,
  };
}

const inputOf = (requested: RunHistory['requested']) => (requested ? { message: requested.message, parameters: requested.parameters, attachments: requested.attachments } : null);

/** What each recorded run was given (in the form a test case takes), by run id: a page of pairs names its inputs. */
export async function recordedInputs(eventStore: EventStore, executionIds: readonly string[]) {
  const histories = await Promise.all(executionIds.map(async (id) => [id, inputOf((await readRunHistory(eventStore, id)).history.requested)] as const));
  return new Map(histories);
}
