import { randomUUID } from 'node:crypto';
import type { Attachment } from '../domain/execution/attachment.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { ExecutionRequest } from './flowEngine.ts';

/** Which steps a run runs: a flow's version (production, a number, a draft snapshot, the one a recorded run ran). */
export type RunTarget = Pick<ExecutionRequest, 'flowId' | 'versionId' | 'versionNumber' | 'organizationId' | 'projectId' | 'steps'>;

/**
 * The one assembly of a run's request, whoever starts it: a transport (/execute, /step, /jobs, MCP),
 * a test case, an author's trial, a backtest's replay, a rerun. What differs between them is said
 * here by name (the mode, and what links the run to what started it), never by a copy of the rest.
 */
export function runRequest(
  target: RunTarget,
  input: { message: string | null; parameters: Record<string, unknown> | undefined; attachments: Attachment[] },
  started: {
    mode: ExecutionRequest['mode'];
    principal: Principal;
    executionId?: string;
    apiKeyId?: string | null;
    requestId?: string | undefined;
    traceparent?: string | undefined;
  } & Partial<Pick<ExecutionRequest, 'tools' | 'callback' | 'testRunId' | 'rerunOf' | 'backtestId' | 'schedule'>>,
): ExecutionRequest {
  const { executionId, apiKeyId, tools, ...rest } = started;
  return {
    executionId: executionId ?? randomUUID(),
    ...target,
    message: input.message,
    parameters: input.parameters ?? {},
    attachments: input.attachments,
    tools,
    apiKeyId: apiKeyId ?? null,
    ...rest,
  };
}
