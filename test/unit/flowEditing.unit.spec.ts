import { describe, expect, it } from 'vitest';
import { flow } from '../../src/domain/flows/flow.ts';
import type { FlowEvent } from '../../src/domain/flows/flowEvents.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const spec = deciderSpec(flow);
const created: FlowEvent[] = [
  { type: 'FlowCreated', data: { flowId: 'f', projectId: 'p', organizationId: 'o', slug: 'essay', name: 'Essay' } },
  { type: 'FlowDraftReplaced', data: { flowId: 'f', name: 'Essay', steps: [] } },
];
const detect = { id: 'b1', name: 'detect', processor_type: 'llm' as const, prompt: 'Detect: {{message}}' };
const added: FlowEvent = { type: 'FlowBlockAdded', data: { flowId: 'f', steps: [{ block: detect }], block: detect, targetId: null, direction: null } };

describe('the flow decider, block by block', () => {
  it('given an empty flow, when a block is added, then FlowBlockAdded with the draft after it', () => {
    spec.given(created).when({ type: 'AddBlock', data: { block: detect } }).then([added]);
  });

  it('given a block, when a sibling is added at its bottom, then the draft holds a parallel step', () => {
    const style = { id: 'b2', name: 'style', processor_type: 'llm' as const, prompt: 'Style' };
    spec
      .given([...created, added])
      .when({ type: 'AddBlock', data: { block: style, targetId: 'b1', direction: 'bottom' } })
      .then([{ type: 'FlowBlockAdded', data: { flowId: 'f', steps: [{ parallel: [detect, style] }], block: style, targetId: 'b1', direction: 'bottom' } }]);
  });

  it('records updates, output schemas, loops and removals with the change and the resulting draft', () => {
    const schema = { type: 'object', properties: { language_code: { type: 'string' } } };
    spec.given([...created, added]).when({ type: 'UpdateBlock', data: { blockId: 'b1', changes: { model: 'gpt-4o' } } }).then([
      { type: 'FlowBlockUpdated', data: { flowId: 'f', blockId: 'b1', changes: { model: 'gpt-4o' }, steps: [{ block: { ...detect, model: 'gpt-4o' } }] } },
    ]);
    spec.given([...created, added]).when({ type: 'SetBlockOutputSchema', data: { blockId: 'b1', schema } }).then([
      { type: 'FlowBlockOutputSchemaSet', data: { flowId: 'f', blockId: 'b1', schema, steps: [{ block: { ...detect, output_schema: schema } }] } },
    ]);
    spec.given([...created, added]).when({ type: 'SetBlockLoop', data: { blockId: 'b1', over: 'parameters.essays' } }).then([
      { type: 'FlowBlockLoopSet', data: { flowId: 'f', blockId: 'b1', over: 'parameters.essays', steps: [{ loop: { over: 'parameters.essays', block: detect } }] } },
    ]);
    spec.given([...created, added]).when({ type: 'RemoveBlock', data: { blockId: 'b1' } }).then([{ type: 'FlowBlockRemoved', data: { flowId: 'f', blockId: 'b1', steps: [] } }]);
  });

  it('the draft after each edit is what the next decision sees, and what publishing snapshots', () => {
    const events = spec.given([...created, added]).when({ type: 'UpdateBlock', data: { blockId: 'b1', changes: { model: 'gpt-4o' } } }).then(() => undefined);
    spec.given([...created, added, ...events]).when({ type: 'PublishVersion', data: { versionId: 'v1', note: 'first' } }).then((published) => {
      expect(published[0]).toMatchObject({ type: 'FlowVersionPublished', data: { number: 1, steps: [{ block: { ...detect, model: 'gpt-4o' } }] } });
    });
  });

  it.each([
    ['a flow that does not exist', [], { type: 'AddBlock' as const, data: { block: detect } }, 'FLOW_NOT_FOUND'],
    ['an unknown block', created, { type: 'RemoveBlock' as const, data: { blockId: 'nope' } }, 'BLOCK_NOT_FOUND'],
    ['a duplicate name', [...created, added], { type: 'AddBlock' as const, data: { block: { ...detect, id: 'b9' }, targetId: 'b1' } }, 'BLOCK_NAME_TAKEN'],
    ['an invalid schema', [...created, added], { type: 'SetBlockOutputSchema' as const, data: { blockId: 'b1', schema: { type: 'array' } } }, 'OUTPUT_SCHEMA_INVALID'],
  ])('given %s, refuses the edit with its code', (_label, given, command, code) => {
    spec.given(given as FlowEvent[]).when(command).thenRefuses(code);
  });
});

describe('the promotion gate', () => {
  const published: FlowEvent = { type: 'FlowVersionPublished', data: { flowId: 'f', versionId: 'v1', number: 1, note: null, name: 'Essay', steps: [{ block: detect }] } };
  const gateOn: FlowEvent = { type: 'FlowPromotionGateSet', data: { flowId: 'f', enabled: true } };
  const set: FlowEvent = { type: 'FlowProductionVersionSet', data: { flowId: 'f', versionId: 'v1', number: 1, previousVersionId: null } };

  it('given the gate off, sets production whatever the tests say', () => {
    spec.given([...created, added, published]).when({ type: 'SetProductionVersion', data: { versionId: 'v1', gate: { status: 'failing', testCases: ['a'] } } }).then([set]);
  });

  it('given the gate on, refuses a version whose tests did not run or fail, and sets one whose tests passed', () => {
    const given = [...created, added, published, gateOn];
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v1' } }).thenRefuses('TESTS_NOT_RUN');
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v1', gate: { status: 'not_run', testCases: ['a'] } } }).thenRefuses('TESTS_NOT_RUN');
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v1', gate: { status: 'failing', testCases: ['a'] } } }).thenRefuses('TESTS_FAILING');
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v1', gate: { status: 'passed' } } }).then([set]);
  });

  it('given the gate on, records a forced promotion as its own event before setting production', () => {
    spec
      .given([...created, added, published, gateOn])
      .when({ type: 'SetProductionVersion', data: { versionId: 'v1', gate: { status: 'failing', testCases: ['a'] }, force: { reason: 'hotfix' } } })
      .then([{ type: 'FlowPromotionForced', data: { flowId: 'f', versionId: 'v1', gate: 'failing', testCases: ['a'], backtest: null, reason: 'hotfix' } }, set]);
  });

  it('given a backtest rule, needs a finished backtest of the version with at most that share of changed answers', () => {
    const rule: FlowEvent = { type: 'FlowBacktestGateSet', data: { flowId: 'f', maxChangedPercent: 10 } };
    // A flow in production (v1) and a candidate (v2): the recorded production runs are v1's.
    const v2: FlowEvent = { type: 'FlowVersionPublished', data: { flowId: 'f', versionId: 'v2', number: 2, note: null, name: 'Essay', steps: [{ block: detect }] } };
    const setV2: FlowEvent = { type: 'FlowProductionVersionSet', data: { flowId: 'f', versionId: 'v2', number: 2, previousVersionId: 'v1' } };
    const given = [...created, added, published, set, v2, rule];
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v2' } }).thenRefuses('BACKTEST_NOT_RUN');
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v2', backtest: { status: 'ran', backtestId: 'b', total: 10, changed: 2 } } }).thenRefuses('BACKTEST_CHANGED');
    spec.given(given).when({ type: 'SetProductionVersion', data: { versionId: 'v2', backtest: { status: 'ran', backtestId: 'b', total: 10, changed: 1 } } }).then([setV2]);
    spec
      .given(given)
      .when({ type: 'SetProductionVersion', data: { versionId: 'v2', backtest: { status: 'ran', backtestId: 'b', total: 3, changed: 1 }, force: { reason: 'known change' } } })
      .then([{ type: 'FlowPromotionForced', data: { flowId: 'f', versionId: 'v2', gate: 'passed', testCases: [], backtest: { status: 'changed', backtestId: 'b', changedPercent: 33.33 }, reason: 'known change' } }, setV2]);
    // Turned off, the rule holds nothing back; setting it to what it is records nothing.
    spec.given([...given, { type: 'FlowBacktestGateSet', data: { flowId: 'f', maxChangedPercent: null } }]).when({ type: 'SetProductionVersion', data: { versionId: 'v2' } }).then([setV2]);
    spec.given(given).when({ type: 'SetBacktestGate', data: { maxChangedPercent: 10 } }).then([]);
  });

  it('given a backtest rule, lets a flow\'s first production version through: no production run exists to replay on it', () => {
    const rule: FlowEvent = { type: 'FlowBacktestGateSet', data: { flowId: 'f', maxChangedPercent: 10 } };
    spec.given([...created, added, published, rule]).when({ type: 'SetProductionVersion', data: { versionId: 'v1' } }).then([set]);
  });
});
