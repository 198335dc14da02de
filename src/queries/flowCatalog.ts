import { LRUCache } from 'lru-cache';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type StoredStep, storedStepSchema } from '../domain/flows/flowDefinition.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

interface Version {
  organizationId: string;
  projectId: string;
  versionNumber: number;
  steps: StoredStep[];
}

export type FlowSlugs = { org: string; project: string; flow: string };

/**
 * The flows callers reach through `/seq/{org}/{project}/{flow}`, read from the read models. A flow
 * and its production version come in one query (the route is hit on every call). Versions are
 * immutable, so their parsed steps are kept, bounded by size (a version's JSON length), least
 * recently used first out. One per runtime.
 */
export function createFlowCatalog(db: Kysely<ReadModels>, options: { maxVersionBytes?: number } = {}) {
  const versions = new LRUCache<string, Version>({ maxSize: options.maxVersionBytes ?? 64 * 1024 * 1024, sizeCalculation: (version) => Math.max(1, JSON.stringify(version.steps).length) });

  /** A flow of another project is reported exactly like a missing one: a key never learns that it exists. */
  async function findFlowForCaller(slugs: FlowSlugs, callerProjectId: string) {
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
    if (!row || row.project_id !== callerProjectId) {
      throw new ApiError('FLOW_NOT_FOUND', `No flow '${slugs.flow}' in ${slugs.org}/${slugs.project}`);
    }
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

  async function version(versionId: string): Promise<Version> {
    const known = versions.get(versionId);
    if (known) return known;
    const row = await db
      .selectFrom('flow_versions')
      .innerJoin('flows', 'flows.id', 'flow_versions.flow_id')
      .select(['flow_versions.number', 'flow_versions.steps', 'flows.organization_id', 'flows.project_id'])
      .where('flow_versions.id', '=', versionId)
      .executeTakeFirstOrThrow();
    const loaded = { organizationId: row.organization_id, projectId: row.project_id, versionNumber: row.number, steps: z.array(storedStepSchema).parse(row.steps) as StoredStep[] };
    versions.set(versionId, loaded);
    return loaded;
  }

  return {
    findFlowForCaller,
    /** The production version a caller's `/seq/{org}/{project}/{flow}` call runs, with its steps. */
    async findExecutableFlow(slugs: FlowSlugs, callerProjectId: string) {
      const flow = await findFlowForCaller(slugs, callerProjectId);
      if (!flow.productionVersion) {
        throw new ApiError('NO_PRODUCTION_VERSION', `Flow '${slugs.flow}' has no production version: publish a version and set it as production`);
      }
      const versionId = flow.productionVersion.versionId;
      return { flowId: flow.flowId, versionId, ...(await version(versionId)) };
    },
    /** The steps of one (immutable) version. */
    versionSteps: async (versionId: string) => (await version(versionId)).steps,
  };
}

export type FlowCatalog = ReturnType<typeof createFlowCatalog>;
export type ExecutableFlow = Awaited<ReturnType<FlowCatalog['findExecutableFlow']>>;
