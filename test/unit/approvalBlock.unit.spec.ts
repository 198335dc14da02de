import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import { statusAfter } from '../../src/domain/execution/runStatus.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const approvalBlock = (config: Record<string, unknown> | undefined, name = 'manager') => ({ id: name, name, processor_type: 'approval' as const, ...(config ? { processor_config: { approval: config as never } } : {}) });
const valid = { text: 'Refund {{parameters.amount}}?', approvers: { roles: ['admin'] } };

describe('an approval block at publish', () => {
  it('needs an approval that names someone who may decide', () => {
    expect(validateFlowForPublish([{ block: approvalBlock(undefined) }])).toEqual(["steps[0].block (block 'manager').processor_config.approval: approval blocks need an approval (text, approvers)"]);
    expect(validateFlowForPublish([{ block: approvalBlock({ text: 'ok?', approvers: {} }) }])).toEqual([
      "steps[0].block (block 'manager').processor_config.approval.approvers: name at least one role (owner, admin, member) or member who may decide",
    ]);
    expect(validateFlowForPublish([{ block: approvalBlock(valid) }])).toEqual([]);
    expect(validateFlowForPublish([{ block: approvalBlock({ text: 'ok?', approvers: { members: ['sam'] } }) }])).toEqual([]);
  });

  it('is a step of its own: refused in a parallel step and in a loop', () => {
    const inParallel: StoredStep[] = [{ parallel: [approvalBlock(valid), { id: 'p', name: 'p', processor_type: 'passthrough' }] }];
    expect(validateFlowForPublish(inParallel)).toEqual(["steps[0].parallel[0] (block 'manager'): approval blocks stop the run for someone outside it: they must be steps of their own, not in a parallel step"]);
    const inLoop: StoredStep[] = [{ loop: { over: 'parameters.items', block: approvalBlock(valid) } }];
    expect(validateFlowForPublish(inLoop)).toEqual(["steps[0].loop.block (block 'manager'): approval blocks stop the run for someone outside it: they must be steps of their own, not in a loop"]);
  });

  it('is refused its approval on a block of another kind, and checks what its text reads', () => {
    expect(validateFlowForPublish([{ block: { id: 'p', name: 'tidy', processor_type: 'passthrough', processor_config: { approval: valid as never } } }])).toEqual(["steps[0].block (block 'tidy').processor_config: approval: only approval blocks wait for a person"]);
    expect(validateFlowForPublish([{ block: approvalBlock({ ...valid, text: 'About {{steps.later.output}}' }) }, { block: { id: 'l', name: 'later', processor_type: 'passthrough' } }])).toEqual([
      "steps[0].block (block 'manager'): the reference steps.later cannot be read: that block runs later (steps[1]); a block reads only blocks of earlier steps",
    ]);
  });
});

const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'hi', parameters: {}, attachments: [], apiKeyId: null, blockCount: 2, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const asked = (onTimeout: 'reject' | 'approve' | 'fail' = 'reject'): ExecutionEvent => ({
  type: 'ApprovalRequested',
  data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'manager', iteration: null, organizationId: 'o', projectId: 'p', flowId: 'f', text: 'Refund?', approvers: { roles: ['admin'], members: ['sam'] }, timeoutMs: 1000, onTimeout },
});
const at = '2026-12-04T10:00:00.000Z';
const member = (subject: string, role: 'owner' | 'admin' | 'member', decision: 'approve' | 'reject' = 'approve', flowId: string | null = 'f') => ({ type: 'DecideApproval' as const, data: { stepId: 'manager', flowId, decision, comment: 'ok', decider: { subject, role }, at } });
const ref = { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'manager', iteration: null };

describe('deciding an approval (the execution decider)', () => {
  const spec = deciderSpec(execution);

  it('given a run waiting at it, a member in a named role or named by subject decides it', () => {
    spec.given([requested, asked()]).when(member('rita', 'admin')).then([{ type: 'ApprovalDecided', data: { ...ref, decision: 'approved', comment: 'ok', decidedBy: { kind: 'member', subject: 'rita', role: 'admin' }, decidedAt: at } }]);
    spec.given([requested, asked()]).when(member('sam', 'member', 'reject')).then([{ type: 'ApprovalDecided', data: { ...ref, decision: 'rejected', comment: 'ok', decidedBy: { kind: 'member', subject: 'sam', role: 'member' }, decidedAt: at } }]);
  });

  it('refuses a member it names neither by role nor by subject, a run of another flow, and a run that does not wait there', () => {
    spec.given([requested, asked()]).when(member('mo', 'member')).thenRefuses('FORBIDDEN');
    spec.given([requested, asked()]).when(member('rita', 'admin', 'approve', 'other-flow')).thenRefuses('EXECUTION_NOT_FOUND');
    spec.given([]).when(member('rita', 'admin')).thenRefuses('EXECUTION_NOT_FOUND');
    spec.given([requested]).when(member('rita', 'admin')).thenRefuses('APPROVAL_NOT_WAITING');
    spec.given([requested, asked(), { type: 'ExecutionFailed', data: { executionId: 'e', reason: 'cancelled', code: 'CANCELLED', message: 'cancelled', detail: null, stepIndex: 0, blockName: 'manager', durationMs: 5 } }]).when(member('rita', 'admin')).thenRefuses('APPROVAL_NOT_WAITING');
  });

  it('decides once: a second decision, a member’s or the timeout’s, is refused or finds nothing', () => {
    const decided: ExecutionEvent = { type: 'ApprovalDecided', data: { ...ref, decision: 'approved', comment: null, decidedBy: { kind: 'member', subject: 'rita', role: 'admin' }, decidedAt: at } };
    spec.given([requested, asked(), decided]).when(member('sam', 'member', 'reject')).thenRefuses('APPROVAL_ALREADY_DECIDED');
    spec.given([requested, asked(), decided]).when({ type: 'TimeOutApproval', data: { stepId: 'manager', at, durationMs: 10 } }).then([]);
  });

  it('on time out, decides as its policy says; `fail` ends the run in the same append', () => {
    const timeout = { type: 'TimeOutApproval' as const, data: { stepId: 'manager', at, durationMs: 1500 } };
    spec.given([requested, asked('approve')]).when(timeout).then([{ type: 'ApprovalDecided', data: { ...ref, decision: 'approved', comment: null, decidedBy: { kind: 'timeout' }, decidedAt: at } }]);
    spec.given([requested, asked('reject')]).when(timeout).then([{ type: 'ApprovalDecided', data: { ...ref, decision: 'rejected', comment: null, decidedBy: { kind: 'timeout' }, decidedAt: at } }]);
    spec.given([requested, asked('fail')]).when(timeout).then((events) => {
      expect(events.map((e) => e.type)).toEqual(['ApprovalDecided', 'ExecutionFailed']);
      expect(events[1]!.data).toMatchObject({ reason: 'error', code: 'APPROVAL_TIMED_OUT', stepIndex: 0, blockName: 'manager', durationMs: 1500 });
    });
  });

  it('refuses a waiting run every other record until decided, and lets an operator cancel it', () => {
    spec.given([requested, asked()]).when({ type: 'Record', event: { type: 'ExecutionCompleted', data: { executionId: 'e', result: {}, durationMs: 1 } } }).thenRefuses('CONFLICT');
    spec.given([requested, asked()]).when({ type: 'Cancel', data: { message: 'cancelled by operator olga', detail: null, durationMs: 9 } }).then((events) => expect(events[0]!.data).toMatchObject({ reason: 'cancelled', stepIndex: 0, blockName: 'manager' }));
    spec.given([requested, asked()]).when({ type: 'Erase', data: { trigger: 'request', reason: 'r', erasedAt: at, match: null } }).thenRefuses('CONFLICT');
  });

  it('property: whatever order members and sweeps come in, exactly one decision is made, and the run then reads running or failed', () => {
    const attempt = fc.oneof(
      fc.record({ kind: fc.constant('member' as const), subject: fc.constantFrom('rita', 'sam', 'mo'), role: fc.constantFrom('owner' as const, 'admin' as const, 'member' as const), decision: fc.constantFrom('approve' as const, 'reject' as const) }),
      fc.record({ kind: fc.constant('timeout' as const) }),
    );
    fc.assert(
      fc.property(fc.constantFrom('reject' as const, 'approve' as const, 'fail' as const), fc.array(attempt, { minLength: 1, maxLength: 8 }), (policy, attempts) => {
        let events: ExecutionEvent[] = [requested, asked(policy)];
        for (const a of attempts) {
          const state = events.reduce(execution.evolve, execution.initialState());
          const command = a.kind === 'timeout' ? { type: 'TimeOutApproval' as const, data: { stepId: 'manager', at, durationMs: 1 } } : member(a.subject, a.role, a.decision);
          try {
            events = [...events, ...execution.decide(command, state)];
          } catch (error) {
            expect((error as { code: string }).code).toMatch(/^(FORBIDDEN|APPROVAL_ALREADY_DECIDED|APPROVAL_NOT_WAITING)$/);
          }
        }
        const decisions = events.filter((e) => e.type === 'ApprovalDecided');
        const allowed = attempts.some((a) => a.kind === 'timeout' || a.subject === 'sam' || a.role === 'admin');
        expect(decisions).toHaveLength(allowed ? 1 : 0);
        const state = events.reduce(execution.evolve, execution.initialState());
        if (allowed) expect(state.status).toBe(policy === 'fail' && (decisions[0]!.data as { decidedBy: { kind: string } }).decidedBy.kind === 'timeout' ? 'failed' : 'running');
        else expect(state.status).toBe('waiting');
        expect(events.map((e) => statusAfter(e)).filter((s) => s === 'waiting')).toHaveLength(1);
      }),
    );
  });
});
