import { LRUCache } from 'lru-cache';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type StoredStep, storedStepSchema } from '../domain/flows/flowDefinition.ts';
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

// Versions are immutable, so their parsed steps can be kept; the cache is bounded by size (a
// version's JSON length), least recently used first out.
const versionCache = new LRUCache<string, { organizationId: string; projectId: string; versionNumber: number; steps: StoredStep[] }>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (version) => Math.max(1, JSON.stringify(version.steps).length),
});

async function loadVersion(db: Kysely<ReadModels>, versionId: string) {
  let version = versionCache.get(versionId);
  if (!version) {
    const row = await db
      .selectFrom('flow_versions')
      .innerJoin('flows', 'flows.id', 'flow_versions.flow_id')
      .select(['flow_versions.number', 'flow_versions.steps', 'flows.organization_id', 'flows.project_id'])
      .where('flow_versions.id', '=', versionId)
      .executeTakeFirstOrThrow();
    version = { organizationId: row.organization_id, projectId: row.project_id, versionNumber: row.number, steps: z.array(storedStepSchema).parse(row.steps) as StoredStep[] };
    versionCache.set(versionId, version);
  }
  return version;
}

/** The steps of one (immutable) version. */
export const findVersionSteps = async (db: Kysely<ReadModels>, versionId: string) => (await loadVersion(db, versionId)).steps;

/** The production version a caller's `/seq/{org}/{project}/{flow}` call runs, with its steps. */
export async function findExecutableFlow(db: Kysely<ReadModels>, slugs: { org: string; project: string; flow: string }, callerProjectId: string) {
  const flow = await findFlowForCaller(db, slugs, callerProjectId);
  if (!flow.productionVersion) {
    throw new ApiError('NO_PRODUCTION_VERSION', `Flow '${slugs.flow}' has no production version: publish a version and set it as production`);
  }
  const versionId = flow.productionVersion.versionId;
  return { flowId: flow.flowId, versionId, ...(await loadVersion(db, versionId)) };
}
