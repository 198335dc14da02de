import { type SubflowConfig, describeTarget, targetOf } from '../../domain/blocks/flow/subflowConfig.ts';
import { childSpending } from '../../domain/blocks/flow/childSpending.ts';
import { MAX_SUBFLOW_DEPTH, childExecutionId, subflowKey } from '../../domain/blocks/flow/subflowLink.ts';
import { blockKinds } from '../../domain/blocks/blockKinds.ts';
import type { ErrorCode } from '../../domain/errors/apiError.ts';
import { execution } from '../../domain/execution/execution.ts';
import { executionStream } from '../../domain/execution/executionEvents.ts';
import { blocksOfStep } from '../../domain/flows/flowDefinition.ts';
import { type TemplateContext, renderTemplate } from '../../domain/templating/template.ts';
import { fillValues } from '../../domain/templating/templatedJson.ts';
import { loadStream } from '../../eventstore/streams.ts';
import { traceparentOf } from '../../observability/traceContext.ts';
import { subflowVersion } from '../../queries/subflowQueries.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { ExecutionOutcome } from '../executionOutcome.ts';
import type { BlockStep } from './blockRunner.ts';
import { noteStepFailed } from './localStep.ts';
import { trace } from '@opentelemetry/api';

type StepRef = { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null };

/**
 * How a `flow` block runs (its rules: src/domain/blocks/flow/): its child run's input rendered from
 * the run's context, SubflowStarted recorded durably in the parent (with the step's start), then the
 * child run, here, to its end. The child's result is the step's output, its tokens and cost are
 * the step's (its credits were charged in its own stream), and its failure is the step's, with the
 * child's code and reason.
 *
 * Crash semantics: the child's id is named by the parent run and the block execution
 * (childExecutionId), so a worker that takes the parent over after a crash finds what its
 * predecessor left: no link (nothing was started: it starts the child), a link and no child (the
 * request was lost: it starts it under the same id), a running child (it continues it, with a
 * claim), or an ended one (its result or failure, without running anything again).
 */
export async function runFlowBlock(step: BlockStep): Promise<unknown> {
  const { session, block, stepIndex, iteration } = step;
  const { run } = session;
  const ref: StepRef = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  const config = block.processor_config!.subflow!; // publishing refuses a flow block without it
  const began = performance.now();
  const childId = childExecutionId(run.executionId, stepIndex, block.name, iteration);
  let outcome: ExecutionOutcome | undefined;
  try {
    outcome = await childOutcome(step, ref, config, childId);
  } catch (error) {
    // Refused before a child ran (too deep, no such flow, a child that would wait): it spent nothing.
    if (error instanceof BlockFailure) noteStepFailed(run, ref, error, Math.round(performance.now() - began));
    throw error;
  }
  return stepEnded(step, ref, config, childId, outcome, Math.round(performance.now() - began));
}

/** What the child's input is: the block's message (its input when absent) and parameters (the run's when absent). */
function childInput(config: SubflowConfig, context: TemplateContext) {
  const missing: string[] = [];
  const input = context.previous_output ?? context.message ?? null;
  let message: string | null;
  if (config.message !== undefined) {
    const rendered = renderTemplate(config.message, context);
    missing.push(...rendered.missing);
    message = rendered.text;
  } else message = input === null ? null : typeof input === 'string' ? input : JSON.stringify(input);
  const parameters = config.parameters === undefined ? context.parameters : (fillValues(config.parameters, context, missing) as Record<string, unknown>);
  return { message, parameters, missing };
}

async function childOutcome(step: BlockStep, ref: StepRef, config: SubflowConfig, childId: string): Promise<ExecutionOutcome | undefined> {
  const { session, block, context, stepIndex, iteration } = step;
  const { deps, run } = session;
  const input = childInput(config, context);
  const linked = run.subflows?.[subflowKey(stepIndex, block.name, iteration)];
  if (linked) {
    const { state, events } = await loadStream(deps.eventStore, executionStream(childId), execution);
    if (state.status === 'running') return deps.childRuns.continue(childId, events.filter((e) => e.type === 'JobClaimed').length + 1);
    if (state.status !== 'none') return undefined; // ended: read below
  }
  const depth = (run.parent?.depth ?? 0) + 1;
  let version = linked ? { flowId: linked.childFlowId, versionId: linked.childVersionId, versionNumber: linked.childVersionNumber, projectId: linked.childProjectId } : undefined;
  if (!linked) {
    run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'flow', input: { message: input.message, parameters: input.parameters }, missingPlaceholders: input.missing } });
    if (depth > MAX_SUBFLOW_DEPTH) throw new BlockFailure('SUBFLOW_DEPTH_EXCEEDED', `the sub-flow ${describeTarget(targetOf(config))} would run ${depth} levels below the run a caller started; at most ${MAX_SUBFLOW_DEPTH}`);
    const found = await subflowVersion(deps.db, run, targetOf(config));
    if ('problem' in found) throw new BlockFailure('SUBFLOW_NOT_FOUND', `the flow block cannot run its sub-flow: ${found.problem}`);
    version = found;
  }
  const steps = await deps.flows.versionSteps(version!.versionId);
  const waiting = steps.flatMap(blocksOfStep).find((b) => blockKinds[b.processor_type].standsAlone);
  if (waiting) throw new BlockFailure('SUBFLOW_UNSUPPORTED', `the sub-flow's version ${version!.versionNumber} has the ${waiting.processor_type} block '${waiting.name}', which waits for someone outside the run: a child run cannot wait (run that flow on its own)`);
  if (!linked) {
    await run.recorder.record({ type: 'SubflowStarted', data: { ...ref, childExecutionId: childId, childFlowId: version!.flowId, childProjectId: version!.projectId, childVersionId: version!.versionId, childVersionNumber: version!.versionNumber } });
  }
  return deps.childRuns.start({
    executionId: childId,
    flowId: version!.flowId,
    versionId: version!.versionId,
    versionNumber: version!.versionNumber,
    organizationId: run.organizationId,
    projectId: version!.projectId,
    steps,
    message: input.message,
    parameters: input.parameters,
    parent: { executionId: run.executionId, stepIndex, blockName: block.name, iteration, depth },
    traceparent: traceparentOf(trace.getSpan(step.span)!),
  });
}

/** The child's end as the parent's step: its result the output, its spending the step's; a failure the step's failure. */
async function stepEnded(step: BlockStep, ref: StepRef, config: SubflowConfig, childId: string, outcome: ExecutionOutcome | undefined, durationMs: number): Promise<unknown> {
  const { deps, run } = step.session;
  const { events } = await loadStream(deps.eventStore, executionStream(childId), execution);
  const spent = childSpending(events);
  const ended = events.findLast((e) => e.type === 'ExecutionCompleted' || e.type === 'ExecutionFailed');
  if (ended?.type === 'ExecutionCompleted') {
    const output = ended.data.result;
    run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: spent.usage, costUsd: spent.costUsd, durationMs, attempts: 1, validationErrors: [] } });
    return output;
  }
  const named = describeTarget(targetOf(config));
  if (ended?.type === 'ExecutionFailed') {
    const failed = ended.data;
    const at = failed.blockName === null ? '' : ` at its block '${failed.blockName}'`;
    const failure = new BlockFailure(failed.code as ErrorCode, `the sub-flow ${named} (run ${childId}) failed${at}: ${failed.message}`, { reason: failed.reason, detail: failed.detail });
    noteStepFailed(run, ref, failure, durationMs, spent);
    throw failure;
  }
  // Paused or waiting (refused before it started, so not expected), or ended by nobody: said, not hidden.
  const failure = new BlockFailure('SUBFLOW_UNSUPPORTED', `the sub-flow ${named} (run ${childId}) stopped without ending (${outcome?.status ?? 'not ended'}): a child run cannot pause or wait`);
  noteStepFailed(run, ref, failure, durationMs, spent);
  throw failure;
}
