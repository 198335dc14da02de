import { LRUCache } from 'lru-cache';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type StoredStep, storedStepSchema } from '../domain/flows/flowDefinition.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { LogWatch } from './logWatch.ts';
import { type FlowSlugs, findFlowForCaller, flowNotFound, productionRow } from '../queries/flowQueries.ts';

interface Version {
  organizationId: string;
  projectId: string;
  versionNumber: number;
  steps: StoredStep[];
}


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
    const row = await productionRow(db, slugs);
    if (!row) return undefined;
    const production = { flowId: row.id, projectId: row.project_id, versionId: row.production_version_id };
    if (live && told === before && Number(row.read_model_position ?? 0) >= switchedAt) productions.set(key, production);
    return production;
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
    /** A flow of another project is reported exactly like a missing one: a key never learns that it exists. */
    findFlowForCaller: (slugs: FlowSlugs, callerProjectId: string) => findFlowForCaller(db, slugs, callerProjectId),
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
