import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../domain/errors/apiError.ts';
import { attachmentSchema } from '../../domain/execution/attachment.ts';
import { checkToolMessagesSize, checkTools, checkToolsAllowedIn } from '../../domain/tools/toolRules.ts';
import { describeIssues } from '../../domain/validation/issuePath.ts';
import type { ApiKeyPrincipal } from '../auth/apiKeyAuthenticator.ts';
import { checkAttachments } from '../../execution/attachmentGate.ts';
import type { ToolRequest } from '../../execution/engineDependencies.ts';
import { type PreparedRun, prepareExecution, prepareResume } from '../../execution/flowEngine.ts';
import type { ExecutionOutcome } from '../../execution/runSteps.ts';
import type { ExecutableFlow } from '../../queries/flowCatalog.ts';
import type { Runtime } from '../../runtime/runtime.ts';

/** The execute/jobs/step request body (spec section 2). */
export const executeBodySchema = z.strictObject({
  message: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  attachments: z.array(attachmentSchema).optional(),
  tools: z.array(z.unknown()).optional(),
  toolChoice: z.unknown().optional(),
  executionId: z.string().optional(),
  pausedAtStep: z.string().optional(),
  iterationsUsed: z.number().int().optional(),
  toolCallMessages: z.array(z.unknown()).optional(),
  // Honoured only by /jobs (spec rule 2): accepted and ignored elsewhere.
  callbackUrl: z.unknown().optional(),
  callbackEvents: z.unknown().optional(),
});
export type ExecuteBody = z.infer<typeof executeBodySchema>;

/** Validates the body's shape; every problem names its field. */
export function parseExecuteBody(body: unknown): ExecuteBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('REQUEST_INVALID', 'The request body must be a JSON object');
  const parsed = executeBodySchema.safeParse(body);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new ApiError('REQUEST_INVALID', `Invalid request: ${problems.join('; ')}`, { problems });
  }
  if (parsed.data.parameters && Object.prototype.hasOwnProperty.call(parsed.data.parameters, 'attachments')) {
    throw new ApiError('PARAMETER_NAME_RESERVED', "parameters.attachments: the name 'attachments' is reserved; send attachments at the top level");
  }
  return parsed.data;
}

export interface ExecutionCall {
  flow: ExecutableFlow;
  outcome: ExecutionOutcome;
}

export interface PreparedCall {
  flow: ExecutableFlow;
  run: PreparedRun;
}

/**
 * One fresh or resume call, shared by /execute and /step. Checks apply in this order (README):
 * resume fields complete (INVALID_RESUME), toolCallMessages size (MESSAGES_TOO_LARGE) and result
 * sizes, tools and toolChoice (TOOLS_INVALID, TOOL_NAME_INVALID), the flow and its production version,
 * tools allowed by the version (TOOLS_NOT_ENABLED, TOOLS_IN_NON_SEQUENTIAL_STEP); then for a resume
 * the run (EXECUTION_ID_INVALID, PAUSED_STEP_INVALID, TOOL_HISTORY_TAMPERED, TOOL_RESULTS_MISMATCH),
 * and for a fresh call the message and the attachments.
 */
export async function executeCall(
  runtime: Runtime,
  caller: RestCaller,
  slugs: { org: string; project: string; flow: string },
  body: ExecuteBody,
  mode: 'sync' | 'step',
): Promise<ExecutionCall> {
  const { flow, run } = await prepareCall(runtime, caller, slugs, body, mode);
  return { flow, outcome: await runtime.runs.track(run.executionId, run.start) };
}

/** The API key a call is made with, and the request's id (X-Request-Id) and trace for the run's events. */
export interface RestCaller {
  apiKey: ApiKeyPrincipal;
  requestId: string;
  /** The request's trace (W3C traceparent), when tracing is on: the run's spans continue it. */
  traceparent?: string;
}

/** Every check of a call; what it returns is ready to start. */
export async function prepareCall(
  runtime: Runtime,
  { apiKey, requestId, traceparent }: RestCaller,
  slugs: { org: string; project: string; flow: string },
  body: ExecuteBody,
  mode: 'sync' | 'step',
): Promise<PreparedCall> {
  const resumeFields = [body.executionId, body.pausedAtStep, body.toolCallMessages];
  const resuming = resumeFields.some((f) => f !== undefined);
  if (resuming && resumeFields.some((f) => f === undefined)) {
    throw new ApiError('INVALID_RESUME', 'a resume call needs all of executionId, pausedAtStep and toolCallMessages');
  }
  if (body.toolCallMessages) checkToolMessagesSize(body.toolCallMessages);
  let tools: ToolRequest | undefined;
  if (body.tools !== undefined) tools = checkTools(body.tools, body.toolChoice);
  else if (body.toolChoice !== undefined) throw new ApiError('TOOLS_INVALID', 'toolChoice needs tools');

  const flow = await runtime.flows.findExecutableFlow(slugs, apiKey.projectId);
  if (tools) checkToolsAllowedIn(flow.steps);
  const principal = { kind: 'apiKey' as const, id: apiKey.keyId };
  const origin = { principal, requestId, traceparent };

  if (resuming) {
    if (!tools) throw new ApiError('INVALID_RESUME', 'the tools array must be sent again with every resume call');
    const run = await prepareResume(runtime.execution, {
      executionId: body.executionId!,
      flowId: flow.flowId,
      pausedAtStep: body.pausedAtStep!,
      toolCallMessages: body.toolCallMessages!,
      tools,
      ...origin,
      loadSteps: (versionId) => runtime.flows.versionSteps(versionId),
    });
    return { flow, run };
  }

  if (body.message === undefined) throw new ApiError('REQUEST_INVALID', 'message: required on a fresh call', { problems: ['message: required'] });
  const attachments = body.attachments ?? [];
  await checkAttachments(attachments, flow.steps, { guard: runtime.execution.guard, registry: runtime.execution.registry, defaultModel: runtime.config.execution.defaultModel });
  const run = await prepareExecution(runtime.execution, {
    executionId: randomUUID(),
    ...flow,
    message: body.message,
    parameters: body.parameters ?? {},
    attachments,
    tools,
    mode,
    apiKeyId: apiKey.keyId,
    ...origin,
  });
  return { flow, run };
}
