import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import { type StoredStep, blocksOfStep } from './flowDefinition.ts';
import type { FlowEvent } from './flowEvents.ts';
import { type BlockChanges, type BlockContent, type Direction, addBlock, removeBlock, setLoop, setOutputSchema, updateBlock } from './draftEdits.ts';
import { type PublishContext, validateFlowForPublish } from './flowValidation.ts';
import { type BacktestGateStatus, backtestGateError, backtestGateProblem } from './backtestGate.ts';

export interface FlowVersionSummary {
  versionId: string;
  number: number;
  note: string | null;
  name: string;
  steps: StoredStep[];
}

export type FlowState =
  | { status: 'none' }
  | {
      status: 'created';
      flowId: string;
      projectId: string;
      organizationId: string;
      slug: string;
      name: string;
      draft: StoredStep[];
      versions: FlowVersionSummary[];
      productionVersionId: string | null;
      /** When on, a version becomes production only once every test case passed on it. */
      promotionGate: boolean;
      /** When set, a version becomes production only after a backtest of it changed at most this share (%) of the answers. */
      backtestGate: number | null;
    };

/** What the test results say of a version, for the promotion gate (the service reads them; the decider rules). */
export type GateStatus = { status: 'passed' } | { status: 'not_run' | 'failing'; testCases: string[] };

export type FlowCommand =
  | {
      type: 'CreateFlow';
      data: { flowId: string; projectId: string; organizationId: string; slug: string; name: string; steps: StoredStep[] };
    }
  | { type: 'ReplaceDraft'; data: { name: string; steps: StoredStep[] } }
  | { type: 'AddBlock'; data: { block: BlockContent & { id: string }; targetId?: string; direction?: Direction } }
  | { type: 'UpdateBlock'; data: { blockId: string; changes: BlockChanges } }
  | { type: 'SetBlockOutputSchema'; data: { blockId: string; schema: Record<string, unknown> | null } }
  | { type: 'RemoveBlock'; data: { blockId: string } }
  | { type: 'SetBlockLoop'; data: { blockId: string; over: string | null } }
  | { type: 'PublishVersion'; data: { versionId: string; note: string | null; context?: PublishContext } }
  | { type: 'SetProductionVersion'; data: { versionId: string; gate?: GateStatus; backtest?: BacktestGateStatus; force?: { reason: string | null } } }
  | { type: 'SetPromotionGate'; data: { enabled: boolean } }
  | { type: 'SetBacktestGate'; data: { maxChangedPercent: number | null } };

const requireFlow = (state: FlowState) => {
  if (state.status !== 'created') throw new ApiError('FLOW_NOT_FOUND', 'Flow not found');
  return state;
};

export const flow: Decider<FlowCommand, FlowEvent, FlowState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    if (event.type === 'FlowCreated') {
      return { status: 'created', ...event.data, draft: [], versions: [], productionVersionId: null, promotionGate: false, backtestGate: null };
    }
    if (state.status !== 'created') return state;
    switch (event.type) {
      case 'FlowDraftReplaced':
        return { ...state, name: event.data.name, draft: event.data.steps };
      case 'FlowBlockAdded':
      case 'FlowBlockUpdated':
      case 'FlowBlockOutputSchemaSet':
      case 'FlowBlockRemoved':
      case 'FlowBlockLoopSet':
        return { ...state, draft: event.data.steps };
      case 'FlowVersionPublished': {
        const { versionId, number, note, name, steps } = event.data;
        return { ...state, versions: [...state.versions, { versionId, number, note, name, steps }] };
      }
      case 'FlowProductionVersionSet':
        return { ...state, productionVersionId: event.data.versionId };
      case 'FlowPromotionGateSet':
        return { ...state, promotionGate: event.data.enabled };
      case 'FlowBacktestGateSet':
        return { ...state, backtestGate: event.data.maxChangedPercent };
      case 'FlowPromotionForced':
        return state;
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'CreateFlow': {
        if (state.status === 'created') throw new ApiError('CONFLICT', `Flow ${state.flowId} already exists`);
        const { steps, ...created } = command.data;
        return [
          { type: 'FlowCreated', data: created },
          { type: 'FlowDraftReplaced', data: { flowId: created.flowId, name: created.name, steps } },
        ];
      }
      case 'ReplaceDraft': {
        const current = requireFlow(state);
        return [{ type: 'FlowDraftReplaced', data: { flowId: current.flowId, ...command.data } }];
      }
      case 'AddBlock':
      case 'UpdateBlock':
      case 'SetBlockOutputSchema':
      case 'RemoveBlock':
      case 'SetBlockLoop':
        return [decideDraftEdit(command, requireFlow(state))];
      case 'PublishVersion': {
        const current = requireFlow(state);
        const problems = validateFlowForPublish(current.draft, command.data.context);
        if (problems.length > 0) {
          throw new ApiError('FLOW_INVALID', `The flow cannot be published:\n${problems.join('\n')}`, { problems });
        }
        return [
          {
            type: 'FlowVersionPublished',
            data: {
              flowId: current.flowId,
              versionId: command.data.versionId,
              number: current.versions.length + 1,
              note: command.data.note,
              name: current.name,
              steps: current.draft,
            },
          },
        ];
      }
      case 'SetProductionVersion': {
        const current = requireFlow(state);
        const version = current.versions.find((v) => v.versionId === command.data.versionId);
        if (!version) throw new ApiError('VERSION_NOT_FOUND', `Version ${command.data.versionId} does not belong to this flow`);
        if (current.productionVersionId === version.versionId) return [];
        const set: FlowEvent = { type: 'FlowProductionVersionSet', data: { flowId: current.flowId, versionId: version.versionId, number: version.number, previousVersionId: current.productionVersionId } };
        // Without test results given, the gate counts the version as untested (and unbacktested).
        const gate = command.data.gate ?? { status: 'not_run', testCases: [] };
        const tests = current.promotionGate && gate.status !== 'passed' ? (gate as Exclude<GateStatus, { status: 'passed' }>) : null;
        // A first production version has no production runs to be replayed on (callers cannot run a flow
        // without one): the backtest rule starts with the second, else only a forced promotion passes it.
        const backtest = current.productionVersionId === null ? null : backtestGateProblem(current.backtestGate, command.data.backtest);
        if (!tests && !backtest) return [set];
        if (command.data.force) {
          return [{ type: 'FlowPromotionForced', data: { flowId: current.flowId, versionId: version.versionId, gate: tests?.status ?? 'passed', testCases: tests?.testCases ?? [], backtest, reason: command.data.force.reason } }, set];
        }
        if (!tests) throw backtestGateError(backtest!, current.backtestGate!, version.number);
        const which = tests.testCases.length > 0 ? `: ${tests.testCases.join(', ')}` : '';
        throw tests.status === 'not_run'
          ? new ApiError('TESTS_NOT_RUN', `The promotion gate is on: not every test case has run on version ${version.number}${which}. Run them (seqflow test run --flow ... --version ${version.number}), or force the promotion`)
          : new ApiError('TESTS_FAILING', `The promotion gate is on: test cases failing on version ${version.number}${which}`);
      }
      case 'SetPromotionGate': {
        const current = requireFlow(state);
        if (current.promotionGate === command.data.enabled) return [];
        return [{ type: 'FlowPromotionGateSet', data: { flowId: current.flowId, enabled: command.data.enabled } }];
      }
      case 'SetBacktestGate': {
        const current = requireFlow(state);
        if (current.backtestGate === command.data.maxChangedPercent) return [];
        return [{ type: 'FlowBacktestGateSet', data: { flowId: current.flowId, maxChangedPercent: command.data.maxChangedPercent } }];
      }
    }
  },
};

type DraftEdit = Extract<FlowCommand, { type: 'AddBlock' | 'UpdateBlock' | 'SetBlockOutputSchema' | 'RemoveBlock' | 'SetBlockLoop' }>;

/** One block edit of the draft: the pure edit decides (or refuses with its code), the event carries the change and the draft after it. */
function decideDraftEdit(command: DraftEdit, flow: { flowId: string; draft: StoredStep[] }): FlowEvent {
  const { flowId, draft } = flow;
  switch (command.type) {
    case 'AddBlock': {
      const { block, targetId, direction } = command.data;
      const steps = addBlock(draft, block, { targetId, direction });
      const added = steps.flatMap(blocksOfStep).find((b) => b.id === block.id)!;
      return { type: 'FlowBlockAdded', data: { flowId, steps, block: added, targetId: targetId ?? null, direction: targetId === undefined ? null : (direction ?? 'right') } };
    }
    case 'UpdateBlock':
      return { type: 'FlowBlockUpdated', data: { flowId, steps: updateBlock(draft, command.data.blockId, command.data.changes), blockId: command.data.blockId, changes: { ...command.data.changes } } };
    case 'SetBlockOutputSchema':
      return { type: 'FlowBlockOutputSchemaSet', data: { flowId, steps: setOutputSchema(draft, command.data.blockId, command.data.schema), ...command.data } };
    case 'RemoveBlock':
      return { type: 'FlowBlockRemoved', data: { flowId, steps: removeBlock(draft, command.data.blockId), blockId: command.data.blockId } };
    case 'SetBlockLoop':
      return { type: 'FlowBlockLoopSet', data: { flowId, steps: setLoop(draft, command.data.blockId, command.data.over), ...command.data } };
  }
}
