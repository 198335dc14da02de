import { LRUCache } from 'lru-cache';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type StoredStep, storedStepSchema } from '../domain/flows/flowDefinition.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { LogWatch } from './logWatch.ts';

interface Version {
  organizationId: string;
  projectId: string;
  versionNumber: number;
  steps: StoredStep[];
}

export type FlowSlugs = { org: string; project: string; flow: string };

const flowNotFound = (slugs: FlowSlugs) => new ApiError('FLOW_NOT_FOUND', `No flow '${slugs.flow}' in ${slugs.org}/${slugs.project}`);

interface Production {
  flowId: string;
  projectId: string;
  versionId: string | null;
}

/**
 * The flows callers reach through `/seq/{org}/{project}/{flow}`, read from the read models. Versions
 * are immutable, so their parsed steps are kept, bounded by size (a version's JSON length), least
 * recently used first out. Which version a slug runs is kept too while the log watch runs: slugs
 * never change and flows are never deleted, so only a production switch changes the answer, and
 * the watch tells it. One per runtime.
 */
export function createFlowCatalog(db: Kysely<ReadModels>, options: { logWatch?: LogWatch; maxVersionBytes?: number } = {}) {
  const versions = new LRUCache<string, Version>({ maxSize: options.maxVersionBytes ?? 64 * 1024 * 1024, sizeCalculation: (version) => Math.max(1, JSON.stringify(version.steps).length) });
  const productions = new LRUCache<string, Production>({ max: 10_000 });
  // `told` counts what the watch said, so a lookup that overlapped a switch is not kept. A switch is
  // told as soon as it is in the log, before the flows read model may have it: until the read model
  // has passed `switchedAt`, what it answers is not kept either.
  let told = 0;
  let switchedAt = 0;
  options.logWatch?.watch({
    wants: (change) => change.type === 'FlowProductionVersionSet',
    changed: (change) => {
      told++;
      switchedAt = Math.max(switchedAt, change.position);
      productions.clear();
    },
    reset: () => {
      told++;
      productions.clear();
    },
  });

  /** The flow a slug names and its production version id; undefined when no such flow. */
  async function productionOf(slugs: FlowSlugs): Promise<Production | undefined> {
    const key = `${slugs.org}/${slugs.project}/${slugs.flow}`;
    const live = options.logWatch?.live === true;
    const known = live ? productions.get(key) : undefined;
    if (known) return known;
    const before = told;
    const row = await db
      .selectFrom('flows')
      .innerJoin('projects', 'projects.id', 'flows.project_id')
      .innerJoin('organizations', 'organizations.id', 'flows.organization_id')
      .select(['flows.id', 'flows.project_id', 'flows.production_version_id'])
      .select((eb) => eb.selectFrom('projection_checkpoints').select('position').where('name', '=', 'flows').as('read_model_position'))
      .where('organizations.slug', '=', slugs.org)
      .where('projects.slug', '=', slugs.project)
      .where('flows.slug', '=', slugs.flow)
      .executeTakeFirst();
    if (!row) return undefined;
    const production = { flowId: row.id, projectId: row.project_id, versionId: row.production_version_id };
    if (live && told === before && Number(row.read_model_position ?? 0) >= switchedAt) productions.set(key, production);
    return production;
  }

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
      const flow = await productionOf(slugs);
      if (!flow || flow.projectId !== callerProjectId) throw flowNotFound(slugs);
      if (!flow.versionId) {
        throw new ApiError('NO_PRODUCTION_VERSION', `Flow '${slugs.flow}' has no production version: publish a version and set it as production`);
      }
      return { flowId: flow.flowId, versionId: flow.versionId, ...(await version(flow.versionId)) };
    },
    /** The steps of one (immutable) version. */
    versionSteps: async (versionId: string) => (await version(versionId)).steps,
  };
}

export type FlowCatalog = ReturnType<typeof createFlowCatalog>;
export type ExecutableFlow = Awaited<ReturnType<FlowCatalog['findExecutableFlow']>>;
