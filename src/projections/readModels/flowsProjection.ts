import type { Transaction } from 'kysely';
import { type StoredStep, blocksOfStep, countBlocks, loopOverOf, stepKind } from '../../domain/flows/flowDefinition.ts';
import { draftEditTypes } from '../../domain/flows/flowEvents.ts';
import type { Projection } from '../projection.ts';
import type { ReadModels } from '../readModelSchema.ts';

/** The draft's blocks, one row each, replaced as a whole with every draft change. */
async function replaceDraftBlocks(trx: Transaction<ReadModels>, flowId: string, steps: StoredStep[]) {
  await trx.deleteFrom('flow_blocks').where('flow_id', '=', flowId).execute();
  const rows = steps.flatMap((step, stepIndex) => {
    const kind = stepKind(step);
    return blocksOfStep(step).map((block, indexInStep) => ({
      flow_id: flowId,
      block_id: block.id,
      name: block.name,
      step_index: stepIndex,
      index_in_step: indexInStep,
      step_kind: kind,
      loop_over: loopOverOf(step),
      processor_type: block.processor_type,
      prompt: block.prompt ?? null,
      model: block.model ?? null,
      output_schema: block.output_schema ? JSON.stringify(block.output_schema) : null,
      code: block.code ?? null,
      processor_config: JSON.stringify(block.processor_config ?? {}),
    }));
  });
  if (rows.length > 0) await trx.insertInto('flow_blocks').values(rows).execute();
}

export const flowsProjection: Projection = {
  name: 'flows',
  handles: ['FlowCreated', 'FlowDraftReplaced', ...draftEditTypes, 'FlowVersionPublished', 'FlowProductionVersionSet', 'ExecutionRequested'],
  tables: ['flows', 'flow_blocks', 'flow_versions'],
  async apply(trx, event, { occurredAt }) {
    switch (event.type) {
      case 'FlowCreated': {
        const { flowId, projectId, organizationId, slug, name } = event.data;
        await trx
          .insertInto('flows')
          .values({
            id: flowId,
            project_id: projectId,
            organization_id: organizationId,
            slug,
            name,
            draft: '[]',
            block_count: 0,
            production_version_id: null,
            production_version_number: null,
            production_set_at: null,
            created_at: occurredAt,
            updated_at: occurredAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'FlowDraftReplaced': {
        const { flowId, name, steps } = event.data;
        await trx
          .updateTable('flows')
          .set({ name, draft: JSON.stringify(steps), block_count: countBlocks(steps), updated_at: occurredAt })
          .where('id', '=', flowId)
          .execute();
        await replaceDraftBlocks(trx, flowId, steps);
        return;
      }
      case 'FlowBlockAdded':
      case 'FlowBlockUpdated':
      case 'FlowBlockOutputSchemaSet':
      case 'FlowBlockRemoved':
      case 'FlowBlockLoopSet': {
        // Every block edit carries the draft after it.
        const { flowId, steps } = event.data;
        await trx.updateTable('flows').set({ draft: JSON.stringify(steps), block_count: countBlocks(steps), updated_at: occurredAt }).where('id', '=', flowId).execute();
        await replaceDraftBlocks(trx, flowId, steps);
        return;
      }
      case 'FlowVersionPublished': {
        const { flowId, versionId, number, note, name, steps } = event.data;
        await trx
          .insertInto('flow_versions')
          .values({ id: versionId, flow_id: flowId, number, note, name, steps: JSON.stringify(steps), block_count: countBlocks(steps), published_at: occurredAt })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'FlowProductionVersionSet': {
        const { flowId, versionId, number } = event.data;
        await trx
          .updateTable('flows')
          .set({ production_version_id: versionId, production_version_number: number, production_set_at: occurredAt })
          .where('id', '=', flowId)
          .execute();
        return;
      }
      case 'ExecutionRequested': {
        if (event.data.attachments.length === 0) return;
        await trx.updateTable('flows').set({ receives_images: true }).where('id', '=', event.data.flowId).where('receives_images', '=', false).execute();
        return;
      }
    }
  },
};
