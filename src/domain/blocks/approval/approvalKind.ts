import { stepsNamedIn } from '../../templating/template.ts';
import { type BlockKind, inputView } from '../blockKind.ts';
import { approvalConfigShape } from './approvalConfig.ts';

/**
 * `approval`: the run waits for a person (an addition to the spec's processor types). The approver
 * reads the block's text, rendered from the run's context; a member the block names, or holding a
 * role it names, approves or rejects with a comment, and the decision is the step's output
 * (`{decision, comment, decided_by, decided_at}`), readable by name like any other. Nobody deciding
 * in time is decided by the block's timeout policy. Run by src/execution/blocks/approvalRunner.ts;
 * decisions: src/domain/execution/approvalDecision.ts.
 */
export const approvalKind: BlockKind<typeof approvalConfigShape> = {
  fields: [],
  configShape: approvalConfigShape,
  draftText: null,
  callsTools: false,
  standsAlone: true,
  receivesAttachments: () => false,
  fieldProblems(block, path) {
    const approval = block.processor_config?.approval;
    const at = `${path}.processor_config.approval`;
    if (!approval) return [`${at}: approval blocks need an approval (text, approvers)`];
    const { roles = [], members = [] } = approval.approvers;
    return roles.length + members.length === 0 ? [`${at}.approvers: name at least one role (owner, admin, member) or member who may decide`] : [];
  },
  foreignUse: (block, path) => (block.processor_config?.approval === undefined ? [] : [`${path}.processor_config: approval: only approval blocks wait for a person`]),
  contextProblems: () => [],
  references: (block) => ({ names: block.processor_config?.approval ? stepsNamedIn(block.processor_config.approval.text) : [], all: false }),
  draftWarnings: (_block, _at, placeholders) => placeholders,
  stepView: inputView,
  mcpHints: {
    adding:
      "approval blocks wait for a person: processor_config.approval {text (a template, like a prompt), approvers {roles: [owner|admin|member], members: [subject]}, timeout_ms (default a day), on_timeout (reject, the default; approve; fail)}; a step of its own (not in a parallel step or loop). The decision is the step's output {decision: approved|rejected, comment, decided_by, decided_at}: later blocks branch on it with run_if.",
    editing: '',
  },
};
