import { blockKinds } from '../domain/blocks/blockKinds.ts';
import { describeTarget, targetOf } from '../domain/blocks/flow/subflowConfig.ts';
import { MAX_SUBFLOW_DEPTH } from '../domain/blocks/flow/subflowLink.ts';
import { flow } from '../domain/flows/flow.ts';
import { type StoredStep, blockPathIn, blocksOfStep } from '../domain/flows/flowDefinition.ts';
import { flowStream } from '../domain/flows/flowEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { CommandDependencies } from './commandHandler.ts';
import { ownerOfSlug } from './slugLookup.ts';

/** The most flow versions one publish check reads: a wide tree of sub-flows is checked this far, and refused past it. */
const MAX_VERSIONS_READ = 200;

interface Link {
  flowId: string;
  slug: string;
}

/**
 * What publishing a flow's steps (a draft, or a version becoming production) checks of the flows
 * its `flow` blocks run, following each chain to its end through the targets' production or pinned
 * versions as they are now: each target exists with that version, no chain leads back to a flow
 * already on it (a cycle, whatever the versions), none nests deeper than MAX_SUBFLOW_DEPTH, and no
 * child version holds a block that waits for someone outside the run. Each problem starts with the
 * path of the root's block that leads to it. A production switch of a target later is checked when
 * it is made (setProductionVersion); a run that meets a chain changed since fails at the step
 * (runtime checks, flowRunner.ts).
 */
export async function subflowProblems(deps: CommandDependencies, root: { organizationId: string; projectId: string; flowId: string; slug: string }, steps: readonly StoredStep[]): Promise<string[]> {
  const problems: string[] = [];
  let read = 0;
  async function visit(stepsOf: readonly StoredStep[], projectId: string, chain: Link[], rootPath: string | null): Promise<void> {
    for (const [stepIndex, step] of stepsOf.entries()) {
      for (const [blockIndex, block] of blocksOfStep(step).entries()) {
        const config = block.processor_config?.subflow;
        if (block.processor_type !== 'flow' || !config) continue;
        const path = rootPath ?? `${blockPathIn(step, stepIndex, blockIndex)} (block '${block.name}')`;
        const via = chain.length > 1 ? ` (through ${chain.slice(1).map((c) => `'${c.slug}'`).join(' → ')})` : '';
        const target = targetOf(config);
        const named = describeTarget(target);
        const targetProject = target.project === undefined ? projectId : await ownerOfSlug(deps.eventStore, 'project', root.organizationId, target.project);
        const flowId = targetProject === null ? null : await ownerOfSlug(deps.eventStore, 'flow', targetProject, target.flow);
        if (flowId === null || targetProject === null) {
          problems.push(`${path}.processor_config.subflow${via}: the flow ${named} does not exist`);
          continue;
        }
        if (chain.some((link) => link.flowId === flowId)) {
          problems.push(`${path}.processor_config.subflow${via}: runs ${named}, which leads back to a flow already on the chain (${[...chain.map((c) => c.slug), target.flow].join(' → ')}): a flow cannot run itself`);
          continue;
        }
        if (chain.length > MAX_SUBFLOW_DEPTH) {
          problems.push(`${path}.processor_config.subflow${via}: sub-flows nest more than ${MAX_SUBFLOW_DEPTH} levels deep`);
          continue;
        }
        if (++read > MAX_VERSIONS_READ) {
          problems.push(`${path}.processor_config.subflow: the flows it leads to run more than ${MAX_VERSIONS_READ} flow versions together; split the chain`);
          return;
        }
        const { state } = await loadStream(deps.eventStore, flowStream(flowId), flow);
        if (state.status !== 'created') continue;
        const version = target.version === undefined ? state.versions.find((v) => v.versionId === state.productionVersionId) : state.versions.find((v) => v.number === target.version);
        if (!version) {
          problems.push(`${path}.processor_config.subflow${via}: the flow ${named} has ${target.version === undefined ? 'no production version' : `no version ${target.version}`}`);
          continue;
        }
        const waits = version.steps.flatMap(blocksOfStep).find((b) => blockKinds[b.processor_type].standsAlone);
        if (waits) problems.push(`${path}.processor_config.subflow${via}: version ${version.number} of '${target.flow}' has the ${waits.processor_type} block '${waits.name}', which waits for someone outside the run: a child run cannot wait`);
        await visit(version.steps, state.projectId, [...chain, { flowId, slug: state.slug }], path);
      }
    }
  }
  await visit(steps, root.projectId, [{ flowId: root.flowId, slug: root.slug }], null);
  return problems;
}
