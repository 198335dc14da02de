import { capFailureDetail, capFailureMessage } from '../domain/execution/failureMessage.ts';
import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import { resultObject } from '../domain/execution/outputShape.ts';
import type { StoredBlock } from '../domain/flows/flowDefinition.ts';
import { setOwn } from '../domain/ownProperty.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { WrongExpectedRevision } from '../eventstore/eventStore.ts';
import type { TemplateContext } from '../domain/templating/template.ts';
import { runLoop, runSwitch, runWhileLoop, settleAll, skippedByCondition } from './stepShapes.ts';
import type { EngineDependencies } from './engineDependencies.ts';
import { blockRunners } from './blocks/blockRunners.ts';
import { PausedForTools } from './pauseData.ts';
import type { ExecutionOutcome } from './executionOutcome.ts';
import { WaitingForApproval } from './waitingData.ts';
import { BlockFailure } from './processors/blockFailure.ts';
import { type RunContext, type RunSession, blockKey } from './runContext.ts';
import { GEN_AI, SEQFLOW } from '../observability/spanAttributes.ts';
import { contextOf, failSpan, inSpan } from '../observability/traceContext.ts';

export type { ExecutionOutcome };

/**
 * Runs a version's steps in order from `fromStep` and records every fact in the run's stream: each
 * block started and completed (input, output, model, tokens, duration), credits consumed, tool
 * pauses, and one terminal event. Block failures end the run as `failed` with a reason; a tool
 * pause ends the call with the pause data, and a resume goes on from there.
 */
export async function runSteps(
  deps: EngineDependencies,
  run: RunContext,
  fromStep: number,
  initialPrevious: unknown,
  resumeConversation: ChatCompletionMessageParam[] | undefined,
): Promise<ExecutionOutcome> {
  // One span per call of the runner (a resumed run has one per part), in the run's own trace.
  const link = run.trace.link ? trace.getSpanContext(contextOf({ traceparent: run.trace.link })) : undefined;
  const parent = contextOf({ traceparent: run.trace.parent });
  const attributes = { [GEN_AI.operationName]: 'invoke_workflow', [GEN_AI.workflowName]: run.flowId, [SEQFLOW.flowId]: run.flowId, [SEQFLOW.executionId]: run.executionId, [SEQFLOW.organizationId]: run.organizationId };
  return inSpan(deps.tracer, 'invoke_workflow', { attributes, links: link ? [{ context: link }] : [] }, parent, async (span, context) => {
    const outcome = await stepsOfRun({ deps, run, spent: 0, span: context }, fromStep, initialPrevious, resumeConversation);
    span.setAttribute(SEQFLOW.outcome, outcome.status);
    if (outcome.status === 'failed') failSpan(span, outcome);
    return outcome;
  });
}

async function stepsOfRun(session: RunSession, fromStep: number, initialPrevious: unknown, resumeConversation: ChatCompletionMessageParam[] | undefined): Promise<ExecutionOutcome> {
  const { deps, run } = session;
  const started = run.startedAt ?? performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { executionId, recorder } = run;

  let previous: unknown = initialPrevious;
  try {
    for (let stepIndex = fromStep; stepIndex < run.steps.length; stepIndex++) {
      const step = run.steps[stepIndex]!;
      // The outputs of earlier steps' blocks as this step starts: a parallel sibling's never shows.
      const context: TemplateContext = { message: run.message ?? undefined, previous_output: previous, parameters: run.parameters, steps: { ...run.accumulated } };
      if ('parallel' in step) {
        const skipped = await skippedByCondition(session, step.run_if, context, stepIndex, step.parallel);
        // Every sibling finishes (and records) before a failure ends the run.
        const outputs = skipped ? step.parallel.map(() => null) : await settleAll(step.parallel.map((block) => runBlock(session, block, context, stepIndex, null)));
        previous = Object.fromEntries(step.parallel.map((block, i) => [block.name, outputs[i]]));
      } else if ('loop' in step) {
        const { loop } = step;
        previous = (await skippedByCondition(session, loop.block.run_if, context, stepIndex, [loop.block])) ? null : 'while' in loop ? await runWhileLoop(session, loop, context, stepIndex, runBlock) : await runLoop(session, loop, context, stepIndex, runBlock);
        setOwn(run.accumulated, loop.block.name, previous);
      } else if ('switch' in step) {
        previous = await runSwitch(session, step.switch, context, stepIndex, runBlock, stepIndex === fromStep ? resumeConversation : undefined, stepIndex === run.steps.length - 1);
      } else if (await skippedByCondition(session, step.block.run_if, context, stepIndex, [step.block])) {
        previous = null;
      } else {
        previous = await runBlock(session, step.block, context, stepIndex, null, stepIndex === fromStep ? resumeConversation : undefined, stepIndex === run.steps.length - 1);
      }
    }
    const result = resultObject(previous);
    let position;
    try {
      position = await recorder.record({ type: 'ExecutionCompleted', data: { executionId, result, durationMs: elapsed() } });
    } catch (error) {
      return await unrecordedEnd(session, error, elapsed());
    }
    return { status: 'completed', executionId, result, position };
  } catch (error) {
    if (error instanceof PausedForTools) return { status: 'paused', ...error.pause, position: recorder.position() };
    if (error instanceof WaitingForApproval) return { status: 'waiting', executionId, waitingFor: error.waitingFor, accumulatedOutputs: { ...run.accumulated }, position: recorder.position() };
    const failure = error instanceof BlockFailure && error.code !== 'INTERNAL' ? error : internalFailure(deps.logger, error, executionId);
    const where = failure as BlockFailure & { stepIndex?: number; blockName?: string };
    const data = { executionId, reason: failure.reason, code: failure.code, message: capFailureMessage(failure.message), detail: capFailureDetail(failure.detail), stepIndex: where.stepIndex ?? null, blockName: where.blockName ?? null, durationMs: elapsed() };
    let position;
    try {
      position = await recorder.record({ type: 'ExecutionFailed', data });
    } catch (recordError) {
      return await unrecordedEnd(session, recordError, elapsed());
    }
    return { status: 'failed', ...data, position };
  }
}

/**
 * The run's end (or a record before it) failed to be written: unless someone else ended the run (a
 * conflict), it ends failed with RUN_RECORD_FAILED in an append of its own, so its job, its sync
 * caller, its /step followers and its webhook all see the end while this process lives. When that
 * append fails too (the database is gone), the first error goes on to the caller as before.
 */
async function unrecordedEnd(session: RunSession, error: unknown, durationMs: number): Promise<ExecutionOutcome> {
  const { deps, run } = session;
  if (error instanceof WrongExpectedRevision || (error instanceof ApiError && error.code === 'CONFLICT')) throw error;
  // Only a run the log shows running is stuck: one never written did not start, and a paused one
  // (its resume not written) waits for the same resume again.
  if (run.recorder.state().status !== 'running') throw error;
  const errorId = randomUUID();
  deps.logger.error({ err: error, executionId: run.executionId, errorId }, "a run's end could not be recorded; recording RUN_RECORD_FAILED instead");
  const message = `the run's end could not be recorded (error id ${errorId}: the service log has it); the run is recorded failed instead`;
  try {
    const { event, position } = await run.recorder.recordUnrecordedEnd(message, durationMs);
    if (event.type !== 'ExecutionFailed') throw error;
    return { status: 'failed', ...event.data, position };
  } catch (lastResortError) {
    deps.logger.error({ err: lastResortError, executionId: run.executionId, errorId }, "a run's RUN_RECORD_FAILED could not be recorded either");
    throw error;
  }
}

/** One block of a step: skipped with its recorded output when a taken-over run already completed it. */
async function runBlock(session: RunSession, block: StoredBlock, context: TemplateContext, stepIndex: number, iteration: number | null, conversation?: ChatCompletionMessageParam[], endsRun = false) {
  const { run } = session;
  const key = blockKey(stepIndex, block.name, iteration);
  if (run.completed?.has(key)) {
    const output = run.completed.get(key);
    if (iteration === null) setOwn(run.accumulated, block.name, output);
    return output;
  }
  const attributes = { [SEQFLOW.stepIndex]: stepIndex, [SEQFLOW.blockName]: block.name, [SEQFLOW.processorType]: block.processor_type, ...(iteration === null ? {} : { [SEQFLOW.iteration]: iteration }) };
  const span = session.deps.tracer.startSpan(`step ${block.name}`, { attributes }, session.span);
  try {
    const output = await blockRunners[block.processor_type]({ session, block, context, stepIndex, iteration, conversation, span: trace.setSpan(session.span, span), endsRun });
    if (iteration === null) setOwn(run.accumulated, block.name, output);
    return output;
  } catch (error) {
    if (error instanceof PausedForTools || error instanceof WaitingForApproval) span.setAttribute(SEQFLOW.paused, true);
    else failSpan(span, error);
    throw error instanceof BlockFailure ? Object.assign(error, { stepIndex, blockName: block.name }) : error;
  } finally {
    span.end();
  }
}

/**
 * An error that is not the block's fault: its text stays in the server log (under an error id) and
 * never reaches the caller or the event log, which get the id only.
 */
function internalFailure(logger: Logger, error: unknown, executionId: string): BlockFailure {
  const errorId = randomUUID();
  const cause = error instanceof BlockFailure && error.cause !== undefined ? error.cause : error;
  logger.error({ err: cause, errorId, executionId }, 'run failed with an internal error');
  const failure = new BlockFailure('INTERNAL', `internal error (error id ${errorId})`);
  if (error instanceof BlockFailure) Object.assign(failure, { stepIndex: (error as { stepIndex?: number }).stepIndex, blockName: (error as { blockName?: string }).blockName });
  return failure;
}
