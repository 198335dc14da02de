import { type Kysely, sql } from 'kysely';
import type { ReadModels, RunsTable } from '../projections/readModelSchema.ts';
import { decodeCursor, encodeCursor, exactInstant } from './keysetCursor.ts';

const CURSOR_PREFIX = 'rn1.';

export interface RunFilters {
  organizationId?: string;
  projectId?: string;
  flowId?: string;
  status?: RunsTable['status'][];
  /** true: test runs only; false: no test runs. */
  test?: boolean;
  apiKeyId?: string;
  /** ISO 8601 times: runs created at or after `from`, strictly before `to`. */
  from?: string;
  to?: string;
}

/** Runs newest first with the operators' filters, paged by a keyset over (created_at, execution_id). */
export async function listRuns(db: Kysely<ReadModels>, filters: RunFilters, page: { limit: number; cursor?: string }) {
  let query = db.selectFrom('runs').selectAll().select(exactInstant('created_at').as('created_at_exact'));
  if (filters.organizationId) query = query.where('organization_id', '=', filters.organizationId);
  if (filters.projectId) query = query.where('project_id', '=', filters.projectId);
  if (filters.flowId) query = query.where('flow_id', '=', filters.flowId);
  if (filters.status?.length) query = query.where('status', 'in', filters.status);
  if (filters.test !== undefined) query = query.where('test_run_id', filters.test ? 'is not' : 'is', null);
  if (filters.apiKeyId) query = query.where('api_key_id', '=', filters.apiKeyId);
  if (filters.from) query = query.where('created_at', '>=', new Date(filters.from));
  if (filters.to) query = query.where('created_at', '<', new Date(filters.to));
  if (page.cursor) {
    const [createdAt, id] = decodeCursor(CURSOR_PREFIX, page.cursor, (key): key is [string, string] => typeof key[0] === 'string' && typeof key[1] === 'string' && !Number.isNaN(Date.parse(key[0])));
    query = query.where(sql<boolean>`(created_at, execution_id) < (${createdAt}::timestamptz, ${id})`);
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('execution_id', 'desc').limit(page.limit).execute();
  const last = rows.at(-1);
  return {
    items: rows.map((r) => ({
      executionId: r.execution_id,
      organizationId: r.organization_id,
      projectId: r.project_id,
      flowId: r.flow_id,
      versionNumber: r.version_number,
      mode: r.mode,
      apiKeyId: r.api_key_id,
      testRunId: r.test_run_id,
      rerunOf: r.rerun_of,
      status: r.status,
      claims: r.claims,
      failureCode: r.failure_code,
      createdAt: r.created_at.toISOString(),
      endedAt: r.ended_at?.toISOString() ?? null,
      durationMs: r.duration_ms,
    })),
    nextCursor: rows.length === page.limit && last ? encodeCursor(CURSOR_PREFIX, [last.created_at_exact, last.execution_id]) : null,
  };
}
