import { type AuthoringScope, inScope } from '../authoring/authoringScope.ts';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import { backtest } from '../domain/backtests/backtest.ts';
import { backtestStream } from '../domain/backtests/backtestEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { loadStream } from '../eventstore/streams.ts';

/** A backtest from its own stream, if it exists and belongs to the scope. */
export async function loadBacktest(deps: CommandDependencies, scope: AuthoringScope, backtestId: string) {
  const { state } = await loadStream(deps.eventStore, backtestStream(backtestId), backtest);
  if (state.status === 'none' || !inScope(scope, state.started.organizationId)) throw new ApiError('BACKTEST_NOT_FOUND', `No backtest ${backtestId}`);
  return state;
}
