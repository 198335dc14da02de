import { failureText } from '../domain/execution/failureMessage.ts';
import { randomUUID } from 'node:crypto';
import { ApiError, type ErrorCode } from '../domain/errors/apiError.ts';
import { isStorageFull } from '../database/storageFull.ts';
import { isConnectionLoss } from '../database/connectionLoss.ts';
import { countBlocks } from '../domain/flows/flowDefinition.ts';
import type { StoredResponse } from '../domain/idempotency/idempotencyKey.ts';
import { checkToolMessagesSize, checkTools, checkToolsAllowedIn } from '../domain/tools/toolRules.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import type { ToolRequest } from '../execution/engineDependencies.ts';
import { type PreparedRun, prepareExecution, prepareResume } from '../execution/flowEngine.ts';
import type { ExecutionOutcome } from '../execution/runSteps.ts';
import type { ExecutableFlow } from '../caches/flowCatalog.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { newRunRequest } from './newRun.ts';
import { type RunCaller, originOf } from './runCaller.ts';
import type { RunStarting } from './runDependencies.ts';
import { type RunInput, requireMessage } from './runInput.ts';

/** A run that passed every check, with the flow it runs; `run.start` runs it. */
export interface PreparedCall {
  flow: ExecutableFlow;
  run: PreparedRun;
}

/**
 * Every check of a fresh or resume call of a sync or step run; what it returns is ready to start.
 * Checks apply in this order (README): resume fields complete (INVALID_RESUME), toolCallMessages
 * size (MESSAGES_TOO_LARGE) and result sizes, tools and toolChoice (TOOLS_INVALID,
 * TOOL_NAME_INVALID), the flow and its production version, tools allowed by the version
 * (TOOLS_NOT_ENABLED, TOOLS_IN_NON_SEQUENTIAL_STEP); then for a resume the run
 * (EXECUTION_ID_INVALID, PAUSED_STEP_INVALID, TOOL_HISTORY_TAMPERED, TOOL_RESULTS_MISMATCH), and for
 * a fresh call the message and the attachments.
 */
export async function prepareRun(deps: RunStarting, caller: RunCaller, slugs: FlowSlugs, input: RunInput, mode: 'sync' | 'step'): Promise<PreparedCall> {
  const resumeFields = [input.executionId, input.pausedAtStep, input.toolCallMessages];
  const resuming = resumeFields.some((f) => f !== undefined);
  if (resuming && resumeFields.some((f) => f === undefined)) {
    throw new ApiError('INVALID_RESUME', 'a resume call needs all of executionId, pausedAtStep and toolCallMessages');
  }
  if (input.toolCallMessages) checkToolMessagesSize(input.toolCallMessages);
  let tools: ToolRequest | undefined;
  if (input.tools !== undefined) tools = checkTools(input.tools, input.toolChoice);
  else if (input.toolChoice !== undefined) throw new ApiError('TOOLS_INVALID', 'toolChoice needs tools');

  const flow = await deps.flows.findExecutableFlow(slugs, caller.projectId);
  if (tools) checkToolsAllowedIn(flow.steps);

  if (resuming) {
    if (!tools) throw new ApiError('INVALID_RESUME', 'the tools array must be sent again with every resume call');
    const run = await prepareResume(deps.engine, {
      executionId: input.executionId!,
      flowId: flow.flowId,
      pausedAtStep: input.pausedAtStep!,
      toolCallMessages: input.toolCallMessages!,
      tools,
      followed: mode === 'step',
      ...originOf(caller),
      loadSteps: (versionId) => deps.flows.versionSteps(versionId),
    });
    return { flow, run };
  }

  const message = requireMessage(input, 'required on a fresh call');
  const attachments = input.attachments ?? [];
  await checkAttachments(attachments, flow.steps, deps.attachments);
  // A /step stream names the run in its first frame, before the run ends.
  const run = await prepareExecution(deps.engine, newRunRequest(flow, caller, { message, parameters: input.parameters, attachments }, mode, { tools }), { idLeavesEarly: mode === 'step' });
  return { flow, run };
}

/**
 * A sync run (/execute): prepared, run to its end or pause while the caller waits, and tracked for a
 * clean shutdown. An internal error once the run has started (its first event is in the log) names
 * the run, so an Idempotency-Key keeps that answer: a retry must not run, and pay for, the flow again.
 */
export async function executeRun(deps: RunStarting, caller: RunCaller, slugs: FlowSlugs, input: RunInput): Promise<StoredResponse> {
  const { flow, run } = await prepareRun(deps, caller, slugs, input, 'sync');
  let outcome: ExecutionOutcome;
  try {
    outcome = await deps.lifecycle.track(run.executionId, run.start);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // The run goes on while its first event is appended: whether it started is known once that
    // append settles. One that did not start answers for why (a resume that lost a race), or fails.
    const notStarted = await run.started.then(() => undefined, (reason: unknown) => ({ reason }));
    if (notStarted) throw notStarted.reason instanceof ApiError ? notStarted.reason : error;
    const errorId = randomUUID();
    deps.engine.logger.error({ err: error, errorId, executionId: run.executionId }, 'internal error in a started run');
    if (isStorageFull(error)) throw new ApiError('DATABASE_STORAGE_FULL', 'the database has no room to write (disk full): the run could not be recorded to its end; retry later with the same Idempotency-Key', { errorId, executionId: run.executionId });
    if (isConnectionLoss(error)) throw new ApiError('DATABASE_UNAVAILABLE', 'the database connection was lost during the run; retry with the same Idempotency-Key to get this answer again', { errorId, executionId: run.executionId });
    throw new ApiError('INTERNAL', 'internal error', { errorId, executionId: run.executionId });
  }
  return syncAnswer(flow, outcome);
}

/**
 * The answer to a sync run (spec section 2): completed with its result, or the pause's tool calls;
 * a failure is an error that names the run (so an Idempotency-Key keeps it).
 */
export function syncAnswer(flow: ExecutableFlow, outcome: ExecutionOutcome): StoredResponse {
  switch (outcome.status) {
    case 'completed':
      return { status: 200, body: { status: 'completed', result: outcome.result, flowId: flow.flowId, blockCount: countBlocks(flow.steps), executionId: outcome.executionId } };
    case 'paused': {
      const { position: _position, status: _status, ...pause } = outcome;
      return { status: 200, body: { status: 'tool_calls_required', ...pause } };
    }
    case 'waiting':
      // An addition to the spec: the run waits for a person, so the caller is answered at once (202)
      // with what it waits for; the run goes on as a job once decided (poll /jobs/{executionId}).
      return { status: 202, body: { status: 'approval_required', executionId: outcome.executionId, flowId: flow.flowId, blockCount: countBlocks(flow.steps), waitingFor: outcome.waitingFor, accumulatedOutputs: outcome.accumulatedOutputs } };
    case 'failed':
      throw new ApiError(outcome.code as ErrorCode, failureText(outcome), {
        executionId: outcome.executionId,
        failureReason: outcome.reason,
        ...(outcome.blockName ? { step_name: outcome.blockName } : {}),
      });
  }
}
