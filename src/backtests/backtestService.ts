import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { backtestPage, listBacktests } from '../queries/backtestQueries.ts';
import type { TestEngine } from '../testing/testRunner.ts';
import { backtestPair, recordedInputs } from './backtestPairs.ts';
import { startBacktest } from './backtestRunner.ts';
import { testCaseFromRun } from './testCaseFromRun.ts';

/** A use case's arguments after its dependencies. */
type Args<F> = F extends (deps: never, ...args: infer A) => unknown ? A : never;

/**
 * The use cases of recorded runs, bound once: backtests (started, listed, read a page or a pair at a
 * time) and a recorded run made a test case. The CLI calls the same functions unbound.
 */
export function createBacktestService(deps: { commands: CommandDependencies; db: Kysely<ReadModels>; engine: TestEngine; eventStore: EventStore }) {
  const { commands, db, engine, eventStore } = deps;
  return {
    startBacktest: (...args: Args<typeof startBacktest>) => startBacktest(engine, ...args),
    listBacktests: (...args: Args<typeof listBacktests>) => listBacktests(db, ...args),
    backtestPage: (...args: Args<typeof backtestPage>) => backtestPage(db, ...args),
    backtestPair: (...args: Args<typeof backtestPair>) => backtestPair({ db, eventStore }, ...args),
    recordedInputs: (executionIds: readonly string[]) => recordedInputs(eventStore, executionIds),
    testCaseFromRun: (...args: Args<typeof testCaseFromRun>) => testCaseFromRun(commands, ...args),
  };
}

export type BacktestService = ReturnType<typeof createBacktestService>;
