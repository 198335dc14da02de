import type { Kysely } from 'kysely';
import { type SubflowTarget, describeTarget } from '../domain/blocks/flow/subflowConfig.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** The version a `flow` block runs, as the read models have it. */
export interface SubflowVersion {
  flowId: string;
  flowSlug: string;
  projectId: string;
  versionId: string;
  versionNumber: number;
}

/**
 * The flow and version a `flow` block names, from where the block is (its organization and
 * project): the flow by slug in the block's project (or the organization's project `project`
 * names), its pinned version or its production version as of now. A problem, in words for the run's
 * failure, when there is none.
 */
export async function subflowVersion(db: Kysely<ReadModels>, at: { organizationId: string; projectId: string }, target: SubflowTarget): Promise<SubflowVersion | { problem: string }> {
  let query = db
    .selectFrom('flows')
    .innerJoin('projects', 'projects.id', 'flows.project_id')
    .select(['flows.id', 'flows.slug', 'flows.project_id', 'flows.production_version_id', 'flows.production_version_number'])
    .where('flows.organization_id', '=', at.organizationId)
    .where('flows.slug', '=', target.flow);
  query = target.project === undefined ? query.where('flows.project_id', '=', at.projectId) : query.where('projects.slug', '=', target.project);
  const flow = await query.executeTakeFirst();
  const named = describeTarget(target);
  if (!flow) return { problem: `the flow ${named} does not exist in ${target.project === undefined ? "the block's project" : 'the organization'}` };
  const base = { flowId: flow.id, flowSlug: flow.slug, projectId: flow.project_id };
  if (target.version === undefined) {
    if (flow.production_version_id === null || flow.production_version_number === null) return { problem: `the flow ${named} has no production version` };
    return { ...base, versionId: flow.production_version_id, versionNumber: flow.production_version_number };
  }
  const version = await db.selectFrom('flow_versions').select(['id', 'number']).where('flow_id', '=', flow.id).where('number', '=', target.version).executeTakeFirst();
  if (!version) return { problem: `the flow ${named} has no version ${target.version}` };
  return { ...base, versionId: version.id, versionNumber: version.number };
}
