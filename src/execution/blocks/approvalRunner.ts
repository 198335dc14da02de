import { APPROVAL_TIMEOUT_DEFAULT_MS, type TimeoutPolicy } from '../../domain/blocks/approval/approvalConfig.ts';
import { approvalOutput } from '../../domain/blocks/approval/approvalEvents.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import { noteStepFailed } from './localStep.ts';
import { renderTemplate } from '../../domain/templating/template.ts';
import { waitingForOf } from '../../domain/execution/waitingFor.ts';
import { WaitingForApproval } from '../waitingData.ts';
import type { BlockStep } from './blockRunner.ts';

/**
 * How an `approval` block runs (its rules: src/domain/blocks/approval/). The first time: its text
 * rendered from the run's context, ApprovalRequested recorded durably (the run then waits: no
 * worker, slot or connection is held), and the run's steps stop. Once decided (the run goes on from
 * its events, as a job takes a run over), the decision is the step's output.
 *
 * Crash semantics: the request is one append against the run's revision, so a worker that dies
 * before it leaves the run running, and the worker that takes it over asks again; one that dies
 * after it leaves the run waiting, and nothing is asked twice.
 */
export async function runApprovalBlock(step: BlockStep): Promise<unknown> {
  const { session, block, context, stepIndex, iteration } = step;
  const { deps, run } = session;
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  const asked = run.approvals?.[block.name];
  if (asked?.decided) {
    const output = approvalOutput(asked.decided);
    const waitedMs = Math.max(0, Date.parse(asked.decided.decidedAt) - Date.parse(asked.requestedAt));
    run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: waitedMs, attempts: 1, validationErrors: [] } });
    return output;
  }
  // Publishing refuses an approval block without its approval: a version is never run without one.
  const approval = block.processor_config!.approval!;
  const rendered = renderTemplate(approval.text, context);
  run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'approval', input: { text: rendered.text }, missingPlaceholders: rendered.missing } });
  const onTimeout = approval.on_timeout ?? 'reject';
  if (run.mode === 'test' || run.mode === 'backtest') return decidedAsTimedOut(step, ref, onTimeout);
  const requested = {
    ...ref,
    organizationId: run.organizationId,
    projectId: run.projectId,
    flowId: run.flowId,
    text: rendered.text,
    approvers: { roles: approval.approvers.roles ?? [], members: approval.approvers.members ?? [] },
    timeoutMs: approval.timeout_ms ?? APPROVAL_TIMEOUT_DEFAULT_MS,
    onTimeout,
  };
  await run.recorder.record({ type: 'ApprovalRequested', data: requested });
  throw new WaitingForApproval(waitingForOf(requested, deps.now().toISOString()));
}

/**
 * Test and backtest runs wait for nobody: an approval is decided at once as its timeout would decide
 * it (README: a test of a flow with approvals checks the path its timeout policy takes).
 */
function decidedAsTimedOut({ session, stepIndex }: BlockStep, ref: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null }, onTimeout: TimeoutPolicy) {
  const { run, deps } = session;
  if (onTimeout === 'fail') {
    const failure = new BlockFailure('APPROVAL_TIMED_OUT', `test runs wait for nobody: the approval '${ref.blockName}' is decided as its timeout would (on_timeout: fail)`);
    noteStepFailed(run, ref, failure, 0);
    throw Object.assign(failure, { stepIndex, blockName: ref.blockName });
  }
  const output = approvalOutput({ decision: onTimeout === 'approve' ? 'approved' : 'rejected', comment: null, decidedBy: { kind: 'timeout' }, decidedAt: deps.now().toISOString() });
  run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: 0, attempts: 1, validationErrors: [] } });
  return output;
}
