import { stepsNamedIn } from '../../templating/template.ts';
import { templatesIn } from '../../templating/templatedJson.ts';
import { type BlockKind, type BlockOf, inputView } from '../blockKind.ts';
import { subflowConfigShape } from './subflowConfig.ts';

type FlowBlock = BlockOf<typeof subflowConfigShape>;

/** Every template of the block: its message and its parameters' strings. */
const templatesOf = (block: FlowBlock): string[] => {
  const subflow = block.processor_config?.subflow;
  return subflow ? [...(subflow.message === undefined ? [] : [subflow.message]), ...templatesIn(subflow.parameters ?? {})] : [];
};

/**
 * `flow`: runs another flow as a child run (an addition to the spec's processor types): its
 * production version, or the version the block pins. The child has a stream of its own, linked
 * both ways (SubflowStarted here, `parent` on its request); its result is the step's output, its
 * cost is the step's, and its failure is the step's. Run by src/execution/blocks/flowRunner.ts.
 * Which flows it may name (they exist, have the version, lead back to no flow of the chain, nest at
 * most MAX_SUBFLOW_DEPTH deep) is checked at publish against the other flows
 * (src/commands/subflowChecks.ts), since this pure check sees one flow.
 */
export const flowKind: BlockKind<typeof subflowConfigShape> = {
  fields: [],
  configShape: subflowConfigShape,
  draftText: null,
  callsTools: false,
  standsAlone: false,
  receivesAttachments: () => false,
  fieldProblems: (block, path) => (block.processor_config?.subflow ? [] : [`${path}.processor_config.subflow: flow blocks need a subflow (the flow's slug)`]),
  foreignUse: (block, path) => (block.processor_config?.subflow === undefined ? [] : [`${path}.processor_config: subflow: only flow blocks run another flow`]),
  contextProblems: () => [],
  references: (block) => ({ names: templatesOf(block).flatMap(stepsNamedIn), all: false }),
  draftWarnings: (_block, _at, placeholders) => placeholders,
  stepView: inputView,
  mcpHints: {
    adding:
      "flow blocks run another flow of the organization as a child run: processor_config.subflow {flow (its slug), project (another project's slug; this one when absent), version (a published number; production when absent), message (a template; the block's input when absent), parameters ({name: template}; a lone {{placeholder}} keeps its value's type; the run's parameters when absent)}. The child's result is the step's output; its failure fails the step. Caller-executed tools and approvals do not run in a child.",
    editing: '',
  },
};
