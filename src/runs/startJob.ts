import { ApiError } from '../domain/errors/apiError.ts';
import { countBlocks } from '../domain/flows/flowDefinition.ts';
import type { StoredResponse } from '../domain/idempotency/idempotencyKey.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import { acceptJob } from '../execution/flowEngine.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { checkCallback } from './callbackCheck.ts';
import { newRunRequest } from './newRun.ts';
import type { RunCaller } from './runCaller.ts';
import type { RunStarting } from './runDependencies.ts';
import { type RunInput, requireMessage } from './runInput.ts';

/**
 * A job (/jobs): every check, then its first event, durably; a job runner takes it from there.
 * Jobs never pause, so tools and resumes are refused. Answers 202 with the job's id.
 */
export async function startJob(deps: Omit<RunStarting, 'lifecycle'>, caller: RunCaller, slugs: FlowSlugs, input: RunInput): Promise<StoredResponse> {
  if (input.tools !== undefined || input.toolChoice !== undefined) {
    throw new ApiError('TOOLS_REQUIRE_SYNC_EXECUTE', 'tools need a caller to answer tool calls: use /execute (or /step), not /jobs');
  }
  if (input.executionId !== undefined || input.pausedAtStep !== undefined || input.toolCallMessages !== undefined) {
    throw new ApiError('INVALID_RESUME', 'jobs are never paused, so there is nothing to resume: use /execute (or /step)');
  }
  const callback = await checkCallback(deps.attachments.guard, deps.callbacks, input);
  const message = requireMessage(input, 'required');
  const flow = await deps.flows.findExecutableFlow(slugs, caller.projectId);
  const attachments = input.attachments ?? [];
  await checkAttachments(attachments, flow.steps, deps.attachments);
  const request = newRunRequest(flow, caller, { message, parameters: input.parameters, attachments }, 'async', { tools: undefined, callback });
  await acceptJob(deps.engine, request);
  return { status: 202, body: { executionId: request.executionId, status: 'started', flowId: flow.flowId, blockCount: countBlocks(flow.steps) } };
}
