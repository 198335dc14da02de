import { type RunKind, modesOfKind, runKinds } from '../domain/execution/runKind.ts';
import { type Kysely, sql } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type ActivityBucket, MAX_BUCKETS, activityBuckets, activitySeries, bucketStart } from './activitySeries.ts';

export interface ActivityQuery {
  organizationId?: string | undefined;
  projectId?: string | undefined;
  flowId?: string | undefined;
  /** Production traffic unless asked: the same kinds the runs listing filters by, or `all`. */
  kind?: RunKind | 'all' | undefined;
  apiKeyId?: string | undefined;
  from: Date;
  to: Date;
  bucket: ActivityBucket;
}

/**
 * Runs and failed runs per flow and bucket (UTC hours or days), production runs unless another
 * kind is asked for, narrowed as the runs listing is (flow, API key), and what they cost: what an on-call engineer looks at first. One grouped query over the runs read model; a window of more than
 * MAX_BUCKETS buckets is refused (ask for days instead of hours).
 */
export async function runActivity(db: Kysely<ReadModels>, query: ActivityQuery) {
  if (!(query.from < query.to)) throw new ApiError('VALIDATION_FAILED', '`from` must be before `to`');
  const buckets = Math.ceil((query.to.getTime() - bucketStart(query.from, query.bucket).getTime()) / activityBuckets[query.bucket]);
  if (buckets > MAX_BUCKETS) throw new ApiError('VALIDATION_FAILED', `that window holds ${buckets} ${query.bucket}s; a chart holds at most ${MAX_BUCKETS}: choose a shorter window or a longer bucket`);
  // A literal, not a parameter: GROUP BY must see the same expression as the SELECT (the bucket is one of activityBuckets' keys).
  const at = sql<Date>`date_trunc(${sql.lit(query.bucket)}, r.created_at, 'UTC')`;
  // Each run's recorded cost, from the ledger's charges since the window began (a run's charges come after it was created).
  const costs = db
    .selectFrom('credit_ledger')
    .select(['execution_id', sql<number>`sum(cost_usd)`.as('cost')])
    .where('delta', '<', 0)
    .where('occurred_at', '>=', bucketStart(query.from, query.bucket))
    .groupBy('execution_id')
    .as('c');
  let rows = db
    .selectFrom('runs as r')
    .leftJoin('flows as f', 'f.id', 'r.flow_id')
    .leftJoin(costs, 'c.execution_id', 'r.execution_id')
    .select([
      'r.flow_id',
      'f.slug',
      'f.name',
      at.as('at'),
      sql<number>`count(*)::int`.as('runs'),
      sql<number>`(count(*) FILTER (WHERE r.status = 'failed'))::int`.as('failed'),
      sql<number>`coalesce(sum(c.cost), 0)`.as('cost'),
    ])
    .where('r.created_at', '>=', bucketStart(query.from, query.bucket))
    .where('r.created_at', '<', query.to)
    .where('r.mode', 'in', query.kind === 'all' ? runKinds.flatMap(modesOfKind) : modesOfKind(query.kind ?? 'production'))
    .groupBy(['r.flow_id', 'f.slug', 'f.name', at]);
  if (query.organizationId) rows = rows.where('r.organization_id', '=', query.organizationId);
  if (query.projectId) rows = rows.where('r.project_id', '=', query.projectId);
  if (query.flowId) rows = rows.where('r.flow_id', '=', query.flowId);
  if (query.apiKeyId) rows = rows.where('r.api_key_id', '=', query.apiKeyId);
  const counted = await rows.execute();
  const series = activitySeries(
    counted.map((row) => ({ flowId: row.flow_id, slug: row.slug, name: row.name, at: new Date(row.at), runs: row.runs, failed: row.failed, costUsd: Number(row.cost) })),
    query,
  );
  return { bucket: query.bucket, from: query.from.toISOString(), to: query.to.toISOString(), ...series };
}
