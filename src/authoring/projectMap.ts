import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import { truncateStrings } from '../domain/execution/truncate.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { TestCaseDefinition } from '../domain/testing/testCaseDefinition.ts';
import { type AuthoringScope, inScope } from './authoringScope.ts';
import { effectiveRunDays } from '../domain/retention/retention.ts';

/** Prompts longer than this are shown cut, with a marker saying their full length. */
const PROMPT_EXCERPT = 120;

/**
 * Where a flow's draft stands against its versions: `empty` (no blocks), `unpublished` (never
 * published), `changed` (edits since the latest version), `published` (the draft is the latest version).
 */
export type DraftStatus = 'empty' | 'unpublished' | 'changed' | 'published';

/**
 * The map an assistant starts from: a project, every flow with its draft blocks (ids, names, types,
 * models, places), draft status, versions and production version, its test cases, the retention
 * period of its runs, and the models the service knows. Compact by design: prompts are excerpts, schemas and code are left out.
 * Read from the read models in a fixed number of queries, whatever the number of flows.
 */
export async function projectMap(db: Kysely<ReadModels>, scope: AuthoringScope, projectId: string) {
  const project = await db.selectFrom('projects').select(['id', 'organization_id', 'slug', 'name']).where('id', '=', projectId).executeTakeFirst();
  if (!project || !inScope(scope, project.organization_id)) throw new ApiError('PROJECT_NOT_FOUND', `No project ${projectId}`);

  const [flows, blocks, versions, testCases, retention] = await Promise.all([
    db.selectFrom('flows').select(['id', 'slug', 'name', 'draft', 'block_count', 'production_version_id', 'production_version_number', 'receives_images', 'updated_at']).where('project_id', '=', projectId).orderBy('slug').execute(),
    db
      .selectFrom('flow_blocks')
      .innerJoin('flows', 'flows.id', 'flow_blocks.flow_id')
      .select(['flow_blocks.flow_id', 'block_id', 'flow_blocks.name', 'processor_type', 'model', 'prompt', 'step_index', 'index_in_step', 'step_kind', 'loop_over'])
      .where('flows.project_id', '=', projectId)
      .orderBy('step_index')
      .orderBy('index_in_step')
      .execute(),
    db
      .selectFrom('flow_versions')
      .innerJoin('flows', 'flows.id', 'flow_versions.flow_id')
      .select(['flow_versions.id', 'flow_versions.flow_id', 'number', 'note', 'published_at', 'steps'])
      .where('flows.project_id', '=', projectId)
      .orderBy('number')
      .execute(),
    db.selectFrom('test_cases').select(['id', 'flow_id', 'name', 'definition']).where('project_id', '=', projectId).orderBy('name').execute(),
    db.selectFrom('retention_periods').select(['project_id', 'run_days']).where('organization_id', '=', project.organization_id).where('project_id', 'in', ['', projectId]).execute(),
  ]);
  const projectDays = retention.find((r) => r.project_id === projectId)?.run_days ?? null;
  const organizationDays = retention.find((r) => r.project_id === '')?.run_days ?? null;

  // Not Map.groupBy: Node 20 lacks it.
  const byFlow = <T extends { flow_id: string }>(rows: T[]) => {
    const groups = new Map<string, T[]>();
    for (const row of rows) {
      const group = groups.get(row.flow_id);
      if (group) group.push(row);
      else groups.set(row.flow_id, [row]);
    }
    return groups;
  };
  const blocksOf = byFlow(blocks);
  const versionsOf = byFlow(versions);
  const casesOf = byFlow(testCases);

  return {
    project_id: project.id,
    organization_id: project.organization_id,
    slug: project.slug,
    name: project.name,
    // How long its runs keep their personal data after they end (docs/operations.md#retention).
    retention: { run_days: effectiveRunDays(organizationDays, projectDays), set_on: projectDays !== null ? ('project' as const) : organizationDays !== null ? ('organization' as const) : null },
    flows: flows.map((f) => {
      const flowVersions = versionsOf.get(f.id) ?? [];
      const cases = casesOf.get(f.id) ?? [];
      const latest = flowVersions.at(-1);
      const draftStatus: DraftStatus = f.block_count === 0 ? 'empty' : !latest ? 'unpublished' : JSON.stringify(latest.steps) === JSON.stringify(f.draft) ? 'published' : 'changed';
      return {
        flow_id: f.id,
        slug: f.slug,
        name: f.name,
        draft_status: draftStatus,
        production_version_id: f.production_version_id,
        production_version_number: f.production_version_number,
        receives_images: f.receives_images || cases.some((c) => hasAttachments(c.definition)),
        blocks: (blocksOf.get(f.id) ?? []).map((b) => ({
          step_id: b.block_id,
          name: b.name,
          processor_type: b.processor_type,
          model: b.model,
          position: { step_index: b.step_index, index_in_step: b.index_in_step, step_kind: b.step_kind, ...(b.loop_over ? { loop_over: b.loop_over } : {}) },
          ...(b.prompt === null ? {} : { prompt_excerpt: truncateStrings(b.prompt, PROMPT_EXCERPT) as string }),
        })),
        versions: flowVersions.map((v) => ({ version_id: v.id, number: v.number, note: v.note, published_at: v.published_at.toISOString() })),
        test_cases: cases.map((c) => ({ test_case_id: c.id, name: c.name })),
      };
    }),
  };
}

const hasAttachments = (definition: unknown) => ((definition as TestCaseDefinition).input.attachments?.length ?? 0) > 0;

/** Whether a flow receives images: some run of it carried attachments, or one of its test cases does. */
export async function flowReceivesImages(db: Kysely<ReadModels>, flowId: string): Promise<boolean> {
  const [flow, cases] = await Promise.all([
    db.selectFrom('flows').select('receives_images').where('id', '=', flowId).executeTakeFirst(),
    db.selectFrom('test_cases').select('definition').where('flow_id', '=', flowId).execute(),
  ]);
  return (flow?.receives_images ?? false) || cases.some((c) => hasAttachments(c.definition));
}
