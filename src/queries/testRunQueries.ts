import { type Kysely, sql } from 'kysely';
import type { GateStatus } from '../domain/flows/flow.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * What the test results say of one version for the promotion gate: every test case of the flow must
 * have run on it and passed its latest run there. A flow without test cases passes.
 */
export async function gateStatusOf(db: Kysely<ReadModels>, flowId: string, versionId: string): Promise<GateStatus> {
  const cases = await db.selectFrom('test_cases').select(['id', 'name']).where('flow_id', '=', flowId).execute();
  if (cases.length === 0) return { status: 'passed' };
  const latest = await sql<{ test_case_id: string; passed: boolean }>`
    SELECT DISTINCT ON (test_case_id) test_case_id, passed FROM test_runs
     WHERE flow_id = ${flowId} AND target_version_id = ${versionId} AND finished_at IS NOT NULL
     ORDER BY test_case_id, finished_at DESC`.execute(db);
  const byCase = new Map(latest.rows.map((r) => [r.test_case_id, r.passed]));
  const notRun = cases.filter((c) => !byCase.has(c.id)).map((c) => c.name);
  if (notRun.length > 0) return { status: 'not_run', testCases: notRun };
  const failing = cases.filter((c) => byCase.get(c.id) === false).map((c) => c.name);
  return failing.length > 0 ? { status: 'failing', testCases: failing } : { status: 'passed' };
}
