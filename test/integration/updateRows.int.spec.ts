import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateRows } from '../../src/projections/updateRows.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

/** Many rows updated by key in one statement per set of columns changed, as a projection's batch does. */
describe('updating many read-model rows at once', () => {
  let t: TestRuntime;
  const base = { flow_id: 'f', project_id: 'p', organization_id: 'o', status: 'started' as const, claims: 0, result: null, failure_reason: null, error_code: null, error_message: null, created_at: '2026-11-24T10:00:00.000Z', started_at: null, completed_at: null, duration_ms: null };

  beforeAll(async () => {
    t = await createTestRuntime('update_rows');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sets each row its own values, whatever columns each changes, and leaves the others alone', async () => {
    await t.runtime.db.insertInto('jobs').values(['a', 'b', 'c', 'untouched'].map((id) => ({ ...base, execution_id: id }))).execute();
    const statements: string[] = [];
    await t.runtime.db.transaction().execute(async (trx) => {
      const counted = trx.withPlugin({ transformQuery: (args) => (statements.push(args.node.kind), args.node), transformResult: async (args) => args.result });
      await updateRows(counted as typeof trx, 'jobs', 'execution_id', { status: 'text', claims: 'integer', result: 'jsonb', completed_at: 'timestamptz', error_message: 'text' }, new Map<string, Record<string, unknown>>([
        ['a', { status: 'completed', result: JSON.stringify({ text: 'it\'s "quoted" \\ and {braced}' }), completed_at: '2026-11-24T10:00:01.500Z' }],
        ['b', { status: 'running', claims: 2 }],
        ['c', { status: 'completed', result: JSON.stringify([1, null]), completed_at: '2026-11-24T10:00:02.000Z' }],
        ['ignored', { status: 'failed', claims: 9 }],
        ['nothing', { status: undefined }],
      ]));
    });
    // Two sets of columns changed (status+result+completed_at, status+claims): two statements.
    expect(statements).toHaveLength(2);
    const rows = await t.runtime.db.selectFrom('jobs').select(['execution_id', 'status', 'claims', 'result', 'completed_at']).orderBy('execution_id').execute();
    expect(rows).toEqual([
      { execution_id: 'a', status: 'completed', claims: 0, result: { text: 'it\'s "quoted" \\ and {braced}' }, completed_at: new Date('2026-11-24T10:00:01.500Z') },
      { execution_id: 'b', status: 'running', claims: 2, result: null, completed_at: null },
      { execution_id: 'c', status: 'completed', claims: 0, result: [1, null], completed_at: new Date('2026-11-24T10:00:02.000Z') },
      { execution_id: 'untouched', status: 'started', claims: 0, result: null, completed_at: null },
    ]);
  });

  it('sets a column to null when a row says null (undefined leaves it)', async () => {
    await t.runtime.db.updateTable('jobs').set({ error_message: 'was set' }).where('execution_id', '=', 'b').execute();
    await t.runtime.db.transaction().execute((trx) => updateRows(trx, 'jobs', 'execution_id', { error_message: 'text', claims: 'integer' }, new Map([['b', { error_message: null, claims: undefined }]])));
    const { rows } = await sql<{ error_message: string | null; claims: number }>`SELECT error_message, claims FROM jobs WHERE execution_id = 'b'`.execute(t.runtime.db);
    expect(rows).toEqual([{ error_message: null, claims: 2 }]);
  });
});
