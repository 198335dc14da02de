import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { sumUsd } from '../domain/models/modelCatalog.ts';

export const USAGE_GROUPINGS = ['flow', 'model', 'day'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** One group's charges: how many, their tokens, their cost in US dollars, and the tokens no price was known for (not in the cost). */
export interface UsageRow {
  flow?: string;
  model?: string;
  day?: string;
  calls: number;
  tokens: number;
  costUsd: number;
  unpricedTokens: number;
}

/**
 * What an organization's llm calls used since `since`, from the projected credit ledger, summed by
 * flow (`project/flow`), by model (as blocks name it) or by UTC day, largest cost first (days in
 * order); with the total. The cost is what each call recorded when it ran (never recomputed at
 * today's prices); calls of a model without a price count in `unpricedTokens`.
 */
export async function organizationUsage(db: Kysely<ReadModels>, organizationId: string, { since, by }: { since: Date | undefined; by: UsageGrouping }) {
  const key =
    by === 'model' ? sql<string>`coalesce(l.model, '(unknown)')` : by === 'day' ? sql<string>`to_char(l.occurred_at at time zone 'UTC', 'YYYY-MM-DD')` : sql<string>`coalesce(p.slug || '/' || f.slug, '(unknown)')`;
  let query = db
    .selectFrom('credit_ledger as l')
    .leftJoin('runs as r', 'r.execution_id', 'l.execution_id')
    .leftJoin('flows as f', 'f.id', 'r.flow_id')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .select([
      key.as('key'),
      sql<string>`count(*)`.as('calls'),
      sql<string>`sum(-l.delta)`.as('tokens'),
      sql<number>`coalesce(sum(l.cost_usd), 0)`.as('cost'),
      sql<string>`coalesce(sum(case when l.cost_usd is null then -l.delta else 0 end), 0)`.as('unpriced'),
    ])
    .where('l.organization_id', '=', organizationId)
    .where('l.delta', '<', 0)
    .groupBy(key);
  if (since) query = query.where('l.occurred_at', '>=', since);
  const rows: UsageRow[] = (await query.execute()).map((row) => ({ [by]: row.key, calls: Number(row.calls), tokens: Number(row.tokens), costUsd: sumUsd([Number(row.cost)]), unpricedTokens: Number(row.unpriced) }));
  rows.sort(by === 'day' ? (a, b) => a.day!.localeCompare(b.day!) : (a, b) => b.costUsd - a.costUsd || b.tokens - a.tokens);
  const total = rows.reduce((sum, row) => ({ calls: sum.calls + row.calls, tokens: sum.tokens + row.tokens, costUsd: sumUsd([sum.costUsd, row.costUsd]), unpricedTokens: sum.unpricedTokens + row.unpricedTokens }), { calls: 0, tokens: 0, costUsd: 0, unpricedTokens: 0 });
  return { rows, total };
}

/** What each flow of a project cost in US dollars since `since`, as its calls recorded it (flows without priced calls left out). */
export async function flowCosts(db: Kysely<ReadModels>, projectId: string, since: Date): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('credit_ledger as l')
    .innerJoin('runs as r', 'r.execution_id', 'l.execution_id')
    .select(['r.flow_id', sql<number>`sum(l.cost_usd)`.as('cost')])
    .where('r.project_id', '=', projectId)
    .where('l.delta', '<', 0)
    .where('l.cost_usd', 'is not', null)
    .where('l.occurred_at', '>=', since)
    .groupBy('r.flow_id')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.flow_id, sumUsd([Number(row.cost)])]));
}
