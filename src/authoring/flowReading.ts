import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type DraftDiff, diffSteps, placedBlocks } from '../domain/flows/draftDiff.ts';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type AuthoringScope, loadFlow, requireFlow } from './flowAuthoring.ts';

/** A flow's draft as authors see it: every block with its stable id (`step_id`) and where it stands. */
export async function showDraft(deps: CommandDependencies, scope: AuthoringScope, flowId: string) {
  const state = await requireFlow(deps, scope, flowId);
  return {
    flowId: state.flowId,
    slug: state.slug,
    name: state.name,
    productionVersionId: state.productionVersionId,
    blocks: placedBlocks(state.draft).map(({ block, stepIndex, stepKind, indexInStep, loopOver }) => ({
      step_id: block.id,
      name: block.name,
      processor_type: block.processor_type,
      position: { stepIndex, stepKind, indexInStep, loopOver },
      model: block.model ?? null,
      prompt: block.prompt ?? null,
      code: block.code ?? null,
      output_schema: block.output_schema ?? null,
      processor_config: block.processor_config ?? {},
    })),
  };
}

/** The flow's versions, oldest first: number, note, who published it and when, and which one is production. */
export async function listFlowVersions(deps: CommandDependencies, scope: AuthoringScope, flowId: string) {
  const { state, recorded, events } = await loadFlow(deps, scope, flowId);
  const production = state.productionVersionId;
  return events.flatMap((event, i) =>
    event.type === 'FlowVersionPublished'
      ? [{ versionId: event.data.versionId, number: event.data.number, note: event.data.note, publishedBy: recorded[i]!.metadata.principal, publishedAt: recorded[i]!.metadata.occurredAt, production: event.data.versionId === production }]
      : [],
  );
}

/** What changed between two versions (by number), or between a version and the draft (`draft`). */
export async function diffFlow(deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; from: number | 'draft'; to: number | 'draft' }): Promise<DraftDiff & { from: number | 'draft'; to: number | 'draft' }> {
  const state = await requireFlow(deps, scope, input.flowId);
  const stepsOf = (which: number | 'draft'): StoredStep[] => {
    if (which === 'draft') return state.draft;
    const version = state.versions.find((v) => v.number === which);
    if (!version) throw new ApiError('VERSION_NOT_FOUND', `Flow '${state.slug}' has no version ${which}`);
    return version.steps;
  };
  return { from: input.from, to: input.to, ...diffSteps(stepsOf(input.from), stepsOf(input.to)) };
}

/** The flows of a project (read model), with their production version. */
export async function listFlows(db: Kysely<ReadModels>, scope: AuthoringScope, projectId: string) {
  let query = db.selectFrom('flows').select(['id', 'slug', 'name', 'block_count', 'production_version_id', 'production_version_number', 'updated_at']).where('project_id', '=', projectId);
  if (scope.organizationIds !== undefined) {
    if (scope.organizationIds.length === 0) return [];
    query = query.where('organization_id', 'in', scope.organizationIds);
  }
  const rows = await query.orderBy('slug').execute();
  return rows.map((r) => ({ flowId: r.id, slug: r.slug, name: r.name, draftBlockCount: r.block_count, productionVersion: r.production_version_number, productionVersionId: r.production_version_id, updatedAt: r.updated_at.toISOString() }));
}
