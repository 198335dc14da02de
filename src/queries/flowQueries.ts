import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/**
 * The flow behind `/seq/{org}/{project}/{flow}`, as seen by a key of `callerProjectId`. A flow of
 * another project is reported exactly like a missing one: a key never learns that it exists.
 */
export async function findFlowForCaller(db: Kysely<ReadModels>, slugs: { org: string; project: string; flow: string }, callerProjectId: string) {
  const row = await db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
    .select([
      'flows.id',
      'flows.slug',
      'flows.name',
      'flows.project_id',
      'flows.block_count',
      'flows.production_version_id',
      'flows.production_version_number',
      'flows.updated_at',
    ])
    .where('organizations.slug', '=', slugs.org)
    .where('projects.slug', '=', slugs.project)
    .where('flows.slug', '=', slugs.flow)
    .executeTakeFirst();
  if (!row || row.project_id !== callerProjectId) {
    throw new ApiError('FLOW_NOT_FOUND', `No flow '${slugs.flow}' in ${slugs.org}/${slugs.project}`);
  }
  const production = row.production_version_id
    ? await db.selectFrom('flow_versions').select(['id', 'number', 'block_count', 'published_at']).where('id', '=', row.production_version_id).executeTakeFirst()
    : undefined;
  return {
    flowId: row.id,
    slug: row.slug,
    name: row.name,
    draftBlockCount: row.block_count,
    productionVersion: production
      ? { versionId: production.id, number: production.number, blockCount: production.block_count, publishedAt: production.published_at.toISOString() }
      : null,
  };
}
