import { handleCommand, type CommandDependencies, type CommandMetadata } from '../commands/commandHandler.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { loadStream } from '../eventstore/streams.ts';

/**
 * An operator cancels a run that has not ended: `ExecutionFailed` with reason `cancelled`, so the
 * job reads `failed`, its `flow.failed` webhook fires if subscribed, and a runner still working on
 * it is stopped by its next append (the stream has moved past the revision it holds).
 */
export async function cancelRun(deps: CommandDependencies, input: { executionId: string; reason?: string | undefined }, metadata: CommandMetadata) {
  const stream = executionStream(input.executionId);
  const { recorded } = await loadStream(deps.eventStore, stream, execution);
  const requested = recorded[0];
  if (!requested) throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  const who = metadata.principal.id;
  const reason = input.reason ? `cancelled by operator ${who}: ${input.reason}` : `cancelled by operator ${who}`;
  const durationMs = Math.max(0, deps.now().getTime() - Date.parse(requested.metadata.occurredAt));
  const result = await handleCommand(deps, stream, execution, { type: 'Cancel', data: { reason, durationMs } }, metadata);
  return { executionId: input.executionId, status: 'failed' as const, failureReason: 'cancelled' as const, message: reason, position: result.position };
}
