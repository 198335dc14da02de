import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childSpending } from '../../src/domain/blocks/flow/childSpending.ts';
import { childExecutionId } from '../../src/domain/blocks/flow/subflowLink.ts';
import { decodeEvent } from '../../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { foldRunHistory } from '../../src/domain/execution/runHistory.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import { fillValues } from '../../src/domain/templating/templatedJson.ts';

const flowBlock = (config: Record<string, unknown> | undefined, name = 'child') => ({ id: name, name, processor_type: 'flow' as const, ...(config ? { processor_config: { subflow: config as never } } : {}) });
const context = { message: 'hi', previous_output: { id: 7 }, parameters: { customer: { name: 'Carol', tags: ['a'] } }, steps: { lookup: { plan: 'gold', seats: 3 } } };

describe('a flow block at publish', () => {
  it('needs the flow it runs, and reads only blocks that ran before it', () => {
    expect(validateFlowForPublish([{ block: flowBlock(undefined) }])).toEqual(["steps[0].block (block 'child').processor_config.subflow: flow blocks need a subflow (the flow's slug)"]);
    expect(validateFlowForPublish([{ block: flowBlock({ flow: 'classify', version: 2, message: '{{message}}', parameters: { plan: '{{parameters.plan}}' } }) }])).toEqual([]);
    const readsLater: StoredStep[] = [{ block: flowBlock({ flow: 'classify', parameters: { plan: '{{steps.later.output.plan}}' } }) }, { block: { id: 'l', name: 'later', processor_type: 'passthrough' } }];
    expect(validateFlowForPublish(readsLater)).toEqual(["steps[0].block (block 'child'): the reference steps.later cannot be read: that block runs later (steps[1]); a block reads only blocks of earlier steps"]);
  });

  it('is refused its subflow on a block of another kind; may run in a loop (each item its own child)', () => {
    expect(validateFlowForPublish([{ block: { id: 'p', name: 'tidy', processor_type: 'passthrough', processor_config: { subflow: { flow: 'x' } as never } } }])).toEqual(["steps[0].block (block 'tidy').processor_config: subflow: only flow blocks run another flow"]);
    expect(validateFlowForPublish([{ loop: { over: 'parameters.items', block: flowBlock({ flow: 'classify' }) } }])).toEqual([]);
  });

  it('names problems the publisher found in the flows it leads to, with the rest', () => {
    expect(validateFlowForPublish([{ block: flowBlock({ flow: 'x' }) }], { subflowProblems: ['steps[0].block: the flow x does not exist'] })).toEqual(['steps[0].block: the flow x does not exist']);
  });
});

describe("a child run's input and link", () => {
  it("fills parameters keeping a lone placeholder's value as it is, and renders any other string as text", () => {
    const missing: string[] = [];
    expect(fillValues({ customer: '{{parameters.customer}}', plan: 'plan {{steps.lookup.output.plan}}', seats: '{{steps.lookup.output.seats}}', fixed: 3, list: ['{{previous_output.id}}'], none: '{{parameters.nope}}' }, context, missing)).toEqual({
      customer: { name: 'Carol', tags: ['a'] },
      plan: 'plan gold',
      seats: 3,
      fixed: 3,
      list: [7],
      none: null,
    });
    expect(missing).toEqual(['parameters.nope']);
  });

  it('property: the child id is the same for the same block execution and differs for any other', () => {
    const execution = fc.record({ parent: fc.uuid(), stepIndex: fc.nat(50), blockName: fc.string({ minLength: 1, maxLength: 20 }), iteration: fc.option(fc.nat(100), { nil: null }) });
    fc.assert(
      fc.property(execution, execution, (a, b) => {
        const idA = childExecutionId(a.parent, a.stepIndex, a.blockName, a.iteration);
        expect(idA).toBe(childExecutionId(a.parent, a.stepIndex, a.blockName, a.iteration));
        expect(idA).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const same = a.parent === b.parent && a.stepIndex === b.stepIndex && a.blockName === b.blockName && a.iteration === b.iteration;
        expect(idA === childExecutionId(b.parent, b.stepIndex, b.blockName, b.iteration)).toBe(same);
      }),
    );
    // A loop's first item and a block outside any loop are different executions.
    expect(childExecutionId('p', 0, 'b', 0)).not.toBe(childExecutionId('p', 0, 'b', null));
  });

  it("sums a child's tokens and cost over its steps, failed ones included (null when none used any)", () => {
    const ref = { executionId: 'c', blockId: 'b', iteration: null };
    const events: ExecutionEvent[] = [
      { type: 'ExecutionStepCompleted', data: { ...ref, stepIndex: 0, blockName: 'a', output: 1, model: 'gpt-4o', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 }, costUsd: 0.000045, durationMs: 1, attempts: 1, validationErrors: [] } },
      { type: 'ExecutionStepCompleted', data: { ...ref, stepIndex: 1, blockName: 'b', output: 1, model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] } },
      { type: 'ExecutionStepFailed', data: { ...ref, stepIndex: 2, blockName: 'c', code: 'PROVIDER_ERROR', message: 'm', detail: null, durationMs: 1, model: 'gpt-4o', usage: { promptTokens: 5, completionTokens: 0, totalTokens: 5 }, costUsd: 0.0000125, attempts: [] } },
    ];
    expect(childSpending(events)).toEqual({ usage: { promptTokens: 15, completionTokens: 2, totalTokens: 17 }, costUsd: 0.000058 });
    expect(childSpending(events.slice(1, 2))).toEqual({ usage: null, costUsd: null });
  });

  it("reads a v7 request as a run with no parent, and keeps a run's links to its children in its history", () => {
    const v7 = { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null };
    const requested = decodeEvent('ExecutionRequested', 7, v7);
    expect(requested).toMatchObject({ type: 'ExecutionRequested', data: { parent: null } });
    const started: ExecutionEvent = { type: 'SubflowStarted', data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'child', iteration: 2, childExecutionId: 'k', childFlowId: 'cf', childProjectId: 'p', childVersionId: 'cv', childVersionNumber: 3 } };
    const history = foldRunHistory([{ event: requested as ExecutionEvent, occurredAt: '2026-12-08T00:00:00.000Z' }, { event: started, occurredAt: '2026-12-08T00:00:01.000Z' }]);
    expect(history.subflows).toEqual({ '0|child|2': started.data });
  });
});
