import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

export type FlowSlugs = { org: string; project: string; flow: string };

export const flowNotFound = (slugs: FlowSlugs) => new ApiError('FLOW_NOT_FOUND', `No flow '${slugs.flow}' in ${slugs.org}/${slugs.project}`);

/** The flow a slug names, its project and production version id, and how far the flows read model has read the log. */
export function productionRow(db: Kysely<ReadModels>, slugs: FlowSlugs) {
  return db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
    .select(['flows.id', 'flows.project_id', 'flows.production_version_id'])
    .select((eb) => eb.selectFrom('projection_checkpoints').select('position').where('name', '=', 'flows').as('read_model_position'))
    .where('organizations.slug', '=', slugs.org)
    .where('projects.slug', '=', slugs.project)
    .where('flows.slug', '=', slugs.flow)
    .executeTakeFirst();
}

/** The flow a slug names and who owns it, whatever the caller (an approver may be a member of any of the organization's projects). */
export async function flowOwners(db: Kysely<ReadModels>, slugs: FlowSlugs) {
  return db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
    .select(['flows.id as flowId', 'flows.project_id as projectId', 'flows.organization_id as organizationId'])
    .where('organizations.slug', '=', slugs.org)
    .where('projects.slug', '=', slugs.project)
    .where('flows.slug', '=', slugs.flow)
    .executeTakeFirst();
}

/** A flow of another project is reported exactly like a missing one: a key never learns that it exists. */
export async function findFlowForCaller(db: Kysely<ReadModels>, slugs: FlowSlugs, callerProjectId: string) {
  const row = await db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
    .leftJoin('flow_versions', 'flow_versions.id', 'flows.production_version_id')
    .select(['flows.id', 'flows.slug', 'flows.name', 'flows.project_id', 'flows.block_count'])
    .select(['flow_versions.id as version_id', 'flow_versions.number as version_number', 'flow_versions.block_count as version_block_count', 'flow_versions.published_at'])
    .where('organizations.slug', '=', slugs.org)
    .where('projects.slug', '=', slugs.project)
    .where('flows.slug', '=', slugs.flow)
    .executeTakeFirst();
  if (!row || row.project_id !== callerProjectId) throw flowNotFound(slugs);
  return {
    flowId: row.id,
    slug: row.slug,
    name: row.name,
    draftBlockCount: row.block_count,
    productionVersion:
      row.version_id !== null
        ? { versionId: row.version_id, number: row.version_number!, blockCount: row.version_block_count!, publishedAt: row.published_at!.toISOString() }
        : null,
  };
}

/** The slugs a flow is reached by, from its id; undefined when no such flow. */
export const flowSlugsOf = async (db: Kysely<ReadModels>, flowId: string): Promise<FlowSlugs | undefined> => (await flowSlugsByIds(db, [flowId])).get(flowId);

/** The slugs each of these flows is reached by, by id (flows that do not exist are absent). */
export async function flowSlugsByIds(db: Kysely<ReadModels>, flowIds: readonly string[]): Promise<Map<string, FlowSlugs>> {
  if (flowIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
    .select(['flows.id', 'organizations.slug as org', 'projects.slug as project', 'flows.slug as flow'])
    .where('flows.id', 'in', [...flowIds])
    .execute();
  return new Map(rows.map(({ id, ...slugs }) => [id, slugs]));
}
