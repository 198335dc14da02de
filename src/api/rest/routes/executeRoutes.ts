import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, type ErrorCode } from '../../../domain/errors/apiError.ts';
import { attachmentSchema } from '../../../domain/execution/attachment.ts';
import { blocksOfStep } from '../../../domain/flows/flowDefinition.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { checkAttachments } from '../../../execution/attachmentGate.ts';
import { countBlocks, runExecution } from '../../../execution/flowEngine.ts';
import { findExecutableFlow } from '../../../queries/flowQueries.ts';
import type { Runtime } from '../../../runtime/runtime.ts';

/** The execute/jobs request body (spec section 2); fields of tool calling are accepted in shape here. */
export const executeBodySchema = z.strictObject({
  message: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  attachments: z.array(attachmentSchema).optional(),
  tools: z.array(z.unknown()).optional(),
  toolChoice: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  executionId: z.string().optional(),
  pausedAtStep: z.string().optional(),
  iterationsUsed: z.number().int().optional(),
  toolCallMessages: z.array(z.unknown()).optional(),
  // Honoured only by /jobs (spec rule 2): accepted and ignored here.
  callbackUrl: z.unknown().optional(),
  callbackEvents: z.unknown().optional(),
});
export type ExecuteBody = z.infer<typeof executeBodySchema>;

const flowPath = z.object({ org: z.string(), project: z.string(), flow: z.string() });

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

export function executeRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    app.post('/seq/:org/:project/:flow/execute', async (request, reply) => {
      const body = parseExecuteBody(request.body);
      if (body.executionId !== undefined || body.pausedAtStep !== undefined || body.toolCallMessages !== undefined) {
        throw new ApiError('EXECUTION_ID_INVALID', 'executionId does not match a run paused for tool calls');
      }
      if (body.message === undefined) throw new ApiError('REQUEST_INVALID', 'message: required on a fresh call', { problems: ['message: required'] });

      const apiKey = request.apiKey!;
      const flow = await findExecutableFlow(runtime.db, flowPath.parse(request.params), apiKey.projectId);
      const blocks = flow.steps.flatMap((step) => blocksOfStep(step));
      if (body.tools !== undefined && !blocks.some((b) => b.processor_config?.tools_enabled)) {
        throw new ApiError('TOOLS_NOT_ENABLED', 'tools were sent, but no block of the production version has processor_config.tools_enabled');
      }
      const attachments = body.attachments ?? [];
      await checkAttachments(attachments, flow.steps, { guard: runtime.execution.guard, registry: runtime.execution.registry, defaultModel: runtime.config.execution.defaultModel });

      const outcome = await runExecution(runtime.execution, {
        executionId: randomUUID(),
        ...flow,
        message: body.message,
        parameters: body.parameters ?? {},
        attachments,
        mode: 'sync',
        apiKeyId: apiKey.keyId,
        principal: { kind: 'apiKey', id: apiKey.keyId },
      });
      if (outcome.status === 'failed') {
        throw new ApiError(outcome.code as ErrorCode, outcome.message, {
          executionId: outcome.executionId,
          failureReason: outcome.reason,
          ...(outcome.blockName ? { step_name: outcome.blockName } : {}),
        });
      }
      return reply.send({ status: 'completed', result: outcome.result, flowId: flow.flowId, blockCount: countBlocks(flow.steps), executionId: outcome.executionId });
    });
  };
}
