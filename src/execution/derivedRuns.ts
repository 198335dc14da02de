import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * How a run came from another: run again (`rerun`), replayed by a backtest, a test run of a test
 * case made from it, a child run one of its flow blocks started (`subflow`), or the run whose flow
 * block started it (`parent_run`: the parent holds the child's result, so erasing either erases both).
 */
export type Derivation = 'rerun' | 'backtest_replay' | 'test_run' | 'subflow' | 'parent_run';

export interface DerivedRun {
  executionId: string;
  derivation: Derivation;
  /** The run it was derived from (the erased run, or a run derived from it). */
  from: string;
  status: string;
  dataErasedAt: Date | null;
}

export interface RunClosure {
  derived: DerivedRun[];
  /** Test cases made from one of the runs: they keep their own copy of its input (the documented exception). */
  testCases: { testCaseId: string; name: string; from: string }[];
}

/** The most runs one erasure takes with it; past it, the erasure is refused rather than left half done. */
export const MAX_DERIVED_RUNS = 10_000;

/**
 * Every run derived from `executionId`, and from those, as the read models record them: reruns,
 * backtest replays, test runs of the test cases made from any of them, and child runs and parent
 * runs both ways along flow blocks' links; with the test cases themselves. Breadth-first, each run once, at most MAX_DERIVED_RUNS (more answers null).
 */
export async function derivedRunsOf(db: Kysely<ReadModels>, executionId: string): Promise<RunClosure | null> {
  const seen = new Set([executionId]);
  const derived: DerivedRun[] = [];
  const testCases: RunClosure['testCases'] = [];
  let frontier = [executionId];
  while (frontier.length > 0) {
    const [reruns, replays, cases, children, parents] = await Promise.all([
      db.selectFrom('runs').select(['execution_id as executionId', 'rerun_of as from']).where('rerun_of', 'in', frontier).execute(),
      db.selectFrom('backtest_pairs').select(['backtest_execution_id as executionId', 'execution_id as from']).where('execution_id', 'in', frontier).execute(),
      db.selectFrom('test_cases').select(['id as testCaseId', 'name', 'from_execution_id as from']).where('from_execution_id', 'in', frontier).execute(),
      db.selectFrom('runs').select(['execution_id as executionId', 'parent_execution_id as from']).where('parent_execution_id', 'in', frontier).execute(),
      db.selectFrom('runs').select(['parent_execution_id as executionId', 'execution_id as from']).where('execution_id', 'in', frontier).where('parent_execution_id', 'is not', null).execute(),
    ]);
    testCases.push(...cases.map((c) => ({ testCaseId: c.testCaseId, name: c.name, from: c.from! })));
    const testRuns = cases.length === 0 ? [] : await db.selectFrom('test_runs').select(['execution_id as executionId', 'test_case_id']).where('test_case_id', 'in', cases.map((c) => c.testCaseId)).execute();
    const caseFrom = new Map(cases.map((c) => [c.testCaseId, c.from!]));
    const found: { executionId: string; from: string; derivation: Derivation }[] = [];
    const candidates = [
      ...reruns.map((r) => ({ executionId: r.executionId, from: r.from!, derivation: 'rerun' as const })),
      ...replays.map((r) => ({ ...r, derivation: 'backtest_replay' as const })),
      ...testRuns.map((r) => ({ executionId: r.executionId, from: caseFrom.get(r.test_case_id)!, derivation: 'test_run' as const })),
      ...children.map((r) => ({ executionId: r.executionId, from: r.from!, derivation: 'subflow' as const })),
      ...parents.map((r) => ({ executionId: r.executionId!, from: r.from, derivation: 'parent_run' as const })),
    ];
    for (const run of candidates) {
      if (seen.has(run.executionId)) continue;
      seen.add(run.executionId);
      found.push(run);
    }
    if (derived.length + found.length > MAX_DERIVED_RUNS) return null;
    const statuses = found.length === 0 ? [] : await db.selectFrom('runs').select(['execution_id', 'status', 'data_erased_at']).where('execution_id', 'in', found.map((r) => r.executionId)).execute();
    const byId = new Map(statuses.map((s) => [s.execution_id, s]));
    // A replay the read models list but do not show as a run yet (it was chosen, not started): nothing to erase.
    derived.push(...found.flatMap((r) => (byId.has(r.executionId) ? [{ ...r, status: byId.get(r.executionId)!.status, dataErasedAt: byId.get(r.executionId)!.data_erased_at }] : [])));
    frontier = found.map((r) => r.executionId);
  }
  return { derived, testCases };
}
