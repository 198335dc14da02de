import type { Kysely } from 'kysely';
import { type RunKind, modesOfKind } from '../domain/execution/runKind.ts';
import type { ReadModels, RunsTable } from '../projections/readModelSchema.ts';
import { afterCreatedCursor, exactInstant, nextCreatedCursor } from './keysetCursor.ts';

const CURSOR_PREFIX = 'rn1.';

export interface RunFilters {
  organizationId?: string;
  projectId?: string;
  flowId?: string;
  status?: RunsTable['status'][];
  mode?: RunsTable['mode'][];
  /** Production runs, test runs (cases, suites, trials) or backtest runs only. */
  kind?: RunKind;
  apiKeyId?: string;
  /** The runs one schedule started. */
  scheduleId?: string;
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
  if (filters.mode?.length) query = query.where('mode', 'in', filters.mode);
  if (filters.kind) query = query.where('mode', 'in', modesOfKind(filters.kind));
  if (filters.apiKeyId) query = query.where('api_key_id', '=', filters.apiKeyId);
  if (filters.scheduleId) query = query.where('schedule_id', '=', filters.scheduleId);
  if (filters.from) query = query.where('created_at', '>=', new Date(filters.from));
  if (filters.to) query = query.where('created_at', '<', new Date(filters.to));
  if (page.cursor) query = query.where(afterCreatedCursor(CURSOR_PREFIX, page.cursor));
  const rows = await query.orderBy('created_at', 'desc').orderBy('execution_id', 'desc').limit(page.limit).execute();
  const { deliveries, flows } = await pageDetails(db, rows);
  return {
    items: rows.map((r) => ({
      executionId: r.execution_id,
      organizationId: r.organization_id,
      projectId: r.project_id,
      flowId: r.flow_id,
      flowSlug: flows.get(r.flow_id) ?? null,
      versionNumber: r.version_number,
      mode: r.mode,
      apiKeyId: r.api_key_id,
      testRunId: r.test_run_id,
      rerunOf: r.rerun_of,
      /** The schedule whose firing started the run, or null. */
      scheduleId: r.schedule_id,
      startedVia: r.started_via,
      status: r.status,
      claims: r.claims,
      failureCode: r.failure_code,
      createdAt: r.created_at.toISOString(),
      endedAt: r.ended_at?.toISOString() ?? null,
      durationMs: r.duration_ms,
      /** When the run's data was erased, or null. */
      dataErasedAt: r.data_erased_at?.toISOString() ?? null,
      /** The run's webhook deliveries: a dead-lettered one is what an operator looks for first. */
      deliveries: deliveries.get(r.execution_id) ?? [],
    })),
    nextCursor: nextCreatedCursor(CURSOR_PREFIX, rows, page.limit, (row) => row.execution_id),
  };
}

/** What one page of runs shows beside each row: its flow's slug and its deliveries' states (two indexed lookups). */
async function pageDetails(db: Kysely<ReadModels>, rows: { execution_id: string; flow_id: string }[]) {
  const deliveries = new Map<string, { deliveryId: string; event: string; status: string }[]>();
  const flows = new Map<string, string>();
  if (rows.length === 0) return { deliveries, flows };
  const [deliveryRows, flowRows] = await Promise.all([
    db.selectFrom('webhook_deliveries').select(['id', 'execution_id', 'event', 'status']).where('execution_id', 'in', rows.map((r) => r.execution_id)).execute(),
    db.selectFrom('flows').select(['id', 'slug']).where('id', 'in', [...new Set(rows.map((r) => r.flow_id))]).execute(),
  ]);
  for (const d of deliveryRows) deliveries.set(d.execution_id, [...(deliveries.get(d.execution_id) ?? []), { deliveryId: d.id, event: d.event, status: d.status }]);
  for (const f of flowRows) flows.set(f.id, f.slug);
  return { deliveries, flows };
}
