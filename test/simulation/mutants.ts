/**
 * The one-line mutations `npm run test:simulate -- --mutants` applies, one at a time, each in a
 * scratch copy of the checkout (scripts/mutants.ts): each must make the checks it names fail, or
 * the simulation and the tests do not catch what they claim to (issue 60 point 8). `find` must occur
 * exactly once in `file`.
 */
export interface Mutant {
  name: string;
  file: string;
  find: string;
  replace: string;
  /** Simulation seeds that must find a broken invariant (npm run test:simulate), when the simulation reaches it. */
  seeds?: number;
  /** Test files (vitest) of which one at least must fail. */
  tests: string[];
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'a delivery of an erased run is attempted: its erased body POSTed under a valid signature',
    file: 'src/workers/deliveryAttempt.ts',
    find: "  return created.erasedFields?.includes('body') ? 'data_erased' : null;",
    replace: '  return null;',
    seeds: 200,
    tests: ['test/e2e/webhookDelivery.e2e.spec.ts'],
  },
  {
    name: "the lease's length, in its SQL: a claimed delivery's lease runs out at once, so another dispatcher takes it while it is in flight",
    file: 'src/leases/leases.ts',
    find: "const until = sql`now() + ${leaseMs} * interval '1 millisecond'`;",
    replace: 'const until = sql`now()`;',
    seeds: 200,
    // The simulation alone: it runs the leases' own SQL on an in-process PostgreSQL (inProcessPostgres.ts).
    tests: [],
  },
  {
    name: "the decider's end guard: a run that ended records more",
    file: 'src/domain/execution/execution.ts',
    find: "    if (state.status !== 'running') throw new ApiError('CONFLICT', `Execution ${state.executionId} is ${state.status}`);\n    return [event];",
    replace: '    return [event];',
    seeds: 200,
    tests: ['test/unit/runEnd.unit.spec.ts'],
  },
  {
    name: 'the RUN_RECORD_FAILED fallback: a run whose end the log refused stays running',
    file: 'src/execution/runSteps.ts',
    find: "  if (run.recorder.state().status !== 'running') throw error;",
    replace: '  throw error;',
    seeds: 200,
    tests: ['test/e2e/runEnds.e2e.spec.ts'],
  },
  {
    name: "the resume claim: a run's appends ignore a concurrent writer (two resumes of one pause both go on)",
    file: 'src/execution/executionRecorder.ts',
    find: "revision === -1 ? 'no_stream' : revision, { durability }",
    replace: "'any', { durability }",
    seeds: 200,
    tests: ['test/simulation/resumePauses.sim.spec.ts', 'test/e2e/toolCalls.e2e.spec.ts'],
  },
  {
    name: "the delivery attempt cap: an attempt whose outcome is never recorded is started for ever",
    file: 'src/domain/webhooks/delivery.ts',
    find: '          if (current.starts >= MAX_STARTS_PER_ATTEMPT) {',
    replace: '          if (current.starts >= Number.MAX_SAFE_INTEGER) {',
    seeds: 200,
    tests: ['test/unit/webhookDelivery.unit.spec.ts'],
  },
  {
    name: "a job's claim number: a takeover records the first worker's claim again, so that worker's late appends are not refused",
    file: 'src/workers/jobRun.ts',
    find: '      claim: job.claims,',
    replace: '      claim: 1,',
    seeds: 200,
    tests: ['test/e2e/jobTakeover.e2e.spec.ts'],
  },
  {
    name: "an http request's Idempotency-Key made anew by each worker: a takeover after a crash files a second ticket",
    file: 'src/execution/blocks/httpRunner.ts',
    find: "iteration, call: 'request' })",
    replace: 'iteration, call: String(Math.random()) })',
    tests: ['test/e2e/httpBlockTakeover.e2e.spec.ts'],
  },
  {
    name: 'the erasure closure: runs derived from an erased run keep its data',
    file: 'src/execution/eraseRunClosure.ts',
    find: '  for (const run of closure.derived) {',
    replace: '  for (const run of closure.derived.slice(closure.derived.length)) {',
    tests: ['test/e2e/runErasure.e2e.spec.ts'],
  },
  {
    name: "the key broadcast: a process keeps an erased run's key",
    file: 'src/runtime/runtime.ts',
    find: '    logWatch.watch(forgetErasedKeys(runDataKeys));',
    replace: '    void forgetErasedKeys;',
    tests: ['test/integration/erasureAcrossProcesses.int.spec.ts'],
  },
  {
    name: "a key cached before its append: the loser of a run's first append seals with a key stored nowhere",
    file: 'src/security/runDataKeys.ts',
    find: '      if (made.get(executionId) === undefined) pending.set(executionId, key);',
    replace: '      made.set(executionId, key);',
    tests: ['test/integration/newRunKeys.int.spec.ts'],
  },
];
