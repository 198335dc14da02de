import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { TestEngine } from './testRunner.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { runTrace, stepTrace } from './runTrace.ts';
import { addTestCase, addTestCases, listTestCases, removeTestCase, requireTestCase, updateTestCase } from './testCases.ts';
import { runTestCase } from './testRunner.ts';
import { runSuite } from './testSuite.ts';
import { runTrial } from './trialRun.ts';

/** A use case's arguments after its dependencies. */
type Args<F> = F extends (deps: never, ...args: infer A) => unknown ? A : never;

/**
 * The testing use cases, bound once: test cases, test runs and suites (ordinary engine runs of mode
 * `test`), and the traces of any run, read from the log.
 */
export function createTestingService(deps: { commands: CommandDependencies; db: Kysely<ReadModels>; engine: TestEngine; eventStore: EventStore }) {
  const { commands, db, engine, eventStore } = deps;
  return {
    addTestCase: (...args: Args<typeof addTestCase>) => addTestCase(commands, ...args),
    addTestCases: (...args: Args<typeof addTestCases>) => addTestCases(commands, ...args),
    updateTestCase: (...args: Args<typeof updateTestCase>) => updateTestCase(commands, ...args),
    removeTestCase: (...args: Args<typeof removeTestCase>) => removeTestCase(commands, ...args),
    requireTestCase: (...args: Args<typeof requireTestCase>) => requireTestCase(commands, ...args),
    listTestCases: (...args: Args<typeof listTestCases>) => listTestCases(db, ...args),
    runTestCase: (...args: Args<typeof runTestCase>) => runTestCase(engine, ...args),
    runSuite: (...args: Args<typeof runSuite>) => runSuite(engine, ...args),
    runTrial: (...args: Args<typeof runTrial>) => runTrial(engine, ...args),
    runTrace: (...args: Args<typeof runTrace>) => runTrace(eventStore, ...args),
    stepTrace: (...args: Args<typeof stepTrace>) => stepTrace(eventStore, ...args),
  };
}

export type TestingService = ReturnType<typeof createTestingService>;
