import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** A flow's test cases with their latest finished run (on one version, when given): the Flows view's test column. */
export async function latestTestResults(db: Kysely<ReadModels>, input: { flowId: string; versionId?: string }) {
  const cases = await db.selectFrom('test_cases').select(['id', 'name']).where('flow_id', '=', input.flowId).orderBy('name').execute();
  let runs = db.selectFrom('test_runs').select(['test_case_id', 'execution_id', 'target_kind', 'target_version_id', 'passed', 'finished_at']).where('flow_id', '=', input.flowId).where('finished_at', 'is not', null);
  if (input.versionId) runs = runs.where('target_version_id', '=', input.versionId);
  const latest = new Map<string, Awaited<ReturnType<typeof runs.execute>>[number]>();
  for (const run of await runs.orderBy('finished_at', 'desc').execute()) if (!latest.has(run.test_case_id)) latest.set(run.test_case_id, run);
  return cases.map((c) => {
    const run = latest.get(c.id);
    return { testCaseId: c.id, name: c.name, latest: run ? { executionId: run.execution_id, target: run.target_kind, versionId: run.target_version_id, passed: run.passed, finishedAt: run.finished_at?.toISOString() ?? null } : null };
  });
}
