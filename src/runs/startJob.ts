import { ApiError } from '../domain/errors/apiError.ts';
import { countBlocks } from '../domain/flows/flowDefinition.ts';
import type { StoredResponse } from '../domain/idempotency/idempotencyKey.ts';
import { type ScheduleInput, firingExecutionId } from '../domain/schedules/scheduleEvents.ts';
import { WrongExpectedRevision } from '../eventstore/eventStore.ts';
import { checkAttachments } from '../execution/attachmentGate.ts';
import { type ExecutionRequest, acceptJob } from '../execution/flowEngine.ts';
import type { FlowSlugs } from '../queries/flowQueries.ts';
import { checkCallback } from './callbackCheck.ts';
import { newRunRequest } from './newRun.ts';
import type { RunCaller } from './runCaller.ts';
import type { RunStarting } from './runDependencies.ts';
import { type RunInput, requireMessage } from './runInput.ts';

type JobStarting = Omit<RunStarting, 'lifecycle'>;

/**
 * A job (/jobs): every check, then its first event, durably; a job runner takes it from there.
 * Jobs never pause, so tools and resumes are refused. Answers 202 with the job's id.
 */
export async function startJob(deps: JobStarting, caller: RunCaller, slugs: FlowSlugs, input: RunInput): Promise<StoredResponse> {
  if (input.tools !== undefined || input.toolChoice !== undefined) {
    throw new ApiError('TOOLS_REQUIRE_SYNC_EXECUTE', 'tools need a caller to answer tool calls: use /execute (or /step), not /jobs');
  }
  if (input.executionId !== undefined || input.pausedAtStep !== undefined || input.toolCallMessages !== undefined) {
    throw new ApiError('INVALID_RESUME', 'jobs are never paused, so there is nothing to resume: use /execute (or /step)');
  }
  const request = await jobRequest(deps, caller, slugs, input, {});
  await acceptJob(deps.engine, request);
  return { status: 202, body: { executionId: request.executionId, status: 'started', flowId: request.flowId, blockCount: countBlocks(request.steps) } };
}

/**
 * A schedule's firing as a job: the checks a /jobs call passes, at the time of the firing (the
 * production version then, the callback's addresses then), under the id the firing names. A
 * second start of the same firing (another worker's) finds the job accepted and answers its id.
 */
export async function startScheduledJob(
  deps: JobStarting,
  firing: { scheduleId: string; scheduledFor: string; projectId: string; input: ScheduleInput; callbackUrl: string | null; callbackEvents: string[] },
  slugs: FlowSlugs,
): Promise<string> {
  const executionId = firingExecutionId(firing.scheduleId, firing.scheduledFor);
  const caller: RunCaller = { projectId: firing.projectId, apiKeyId: null, principal: { kind: 'system', id: 'schedule' } };
  const callback = firing.callbackUrl === null ? {} : { callbackUrl: firing.callbackUrl, callbackEvents: firing.callbackEvents };
  const request = await jobRequest(deps, caller, slugs, { ...firing.input, ...callback }, { executionId, schedule: { scheduleId: firing.scheduleId, scheduledFor: firing.scheduledFor } });
  try {
    await acceptJob(deps.engine, request);
  } catch (error) {
    if (!(error instanceof WrongExpectedRevision)) throw error;
  }
  return executionId;
}

/** A job's request after every check: its callback, its message, the flow's production version, its attachments. */
async function jobRequest(deps: JobStarting, caller: RunCaller, slugs: FlowSlugs, input: RunInput, started: Pick<ExecutionRequest, 'schedule'> & { executionId?: string }): Promise<ExecutionRequest> {
  const callback = await checkCallback(deps.attachments.guard, deps.callbacks, input);
  const message = requireMessage(input, 'required');
  const flow = await deps.flows.findExecutableFlow(slugs, caller.projectId);
  const attachments = input.attachments ?? [];
  await checkAttachments(attachments, flow.steps, deps.attachments);
  return newRunRequest(flow, caller, { message, parameters: input.parameters, attachments }, 'async', { tools: undefined, callback, ...started });
}
