import type { ExecutionRequest } from '../execution/flowEngine.ts';
import type { ExecutableFlow } from '../caches/flowCatalog.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import { type RunCaller, originOf } from './runCaller.ts';
import type { RunInput } from './runInput.ts';
import { runRequest } from '../execution/runRequest.ts';

/** A fresh run's request, from the flow's production version, the caller's input and its caller: the one assembly every mode shares. */
export function newRunRequest(
  flow: ExecutableFlow,
  caller: RunCaller,
  input: { message: string; parameters: RunInput['parameters']; attachments: Attachment[] },
  mode: ExecutionRequest['mode'],
  extra: Pick<ExecutionRequest, 'tools'> & Partial<Pick<ExecutionRequest, 'callback' | 'executionId' | 'schedule'>>,
): ExecutionRequest {
  return runRequest(flow, input, { mode, apiKeyId: caller.apiKeyId, ...originOf(caller), ...extra });
}
