import type { Kysely } from 'kysely';
import type { JobsTable, ReadModels } from '../projections/readModelSchema.ts';
import { jobViewOfRow } from '../projections/readModels/jobsProjection.ts';
import { afterCreatedCursor, exactInstant, nextCreatedCursor } from './keysetCursor.ts';

const CURSOR_PREFIX = 'jb1.';

export interface JobFilters {
  flowId: string;
  status?: JobsTable['status'][];
  /** ISO 8601 times: jobs created at or after `from`, strictly before `to`. */
  from?: string;
  to?: string;
}

/** One flow's jobs, newest first, paged by a keyset over (created_at, execution_id): a page never repeats or skips a row. */
export async function listJobs(db: Kysely<ReadModels>, filters: JobFilters, page: { limit: number; cursor?: string }) {
  let query = db.selectFrom('jobs').selectAll().select(exactInstant('created_at').as('created_at_exact')).where('flow_id', '=', filters.flowId);
  if (filters.status?.length) query = query.where('status', 'in', filters.status);
  if (filters.from) query = query.where('created_at', '>=', new Date(filters.from));
  if (filters.to) query = query.where('created_at', '<', new Date(filters.to));
  if (page.cursor) query = query.where(afterCreatedCursor(CURSOR_PREFIX, page.cursor));
  const rows = await query.orderBy('created_at', 'desc').orderBy('execution_id', 'desc').limit(page.limit).execute();
  return {
    items: rows.map(({ created_at_exact: _exact, ...row }) => jobViewOfRow(row)),
    nextCursor: nextCreatedCursor(CURSOR_PREFIX, rows, page.limit, (row) => row.execution_id),
  };
}
