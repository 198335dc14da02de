import { handleCommand, type CommandDependencies, type CommandMetadata } from '../commands/commandHandler.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { loadStream } from '../eventstore/streams.ts';
import { capFailureDetail, failureText } from '../domain/execution/failureMessage.ts';

const canceller = (principal: Principal) => (principal.kind === 'apiKey' ? `API key ${principal.id}` : `operator ${principal.id}`);

/**
 * Cancels a run that has not ended: `ExecutionFailed` with reason `cancelled`, so the job reads
 * `failed`, its `flow.failed` webhook fires if subscribed, and a runner still working on it is
 * stopped by its next append (the stream has moved past the revision it holds). `jobOf`: only a
 * /jobs run of that flow may be cancelled (a caller with an API key); any other run is not found.
 */
export async function cancelRun(
  deps: CommandDependencies,
  input: { executionId: string; reason?: string | undefined; jobOf?: string },
  metadata: CommandMetadata,
) {
  const stream = executionStream(input.executionId);
  const { recorded, events } = await loadStream(deps.eventStore, stream, execution);
  const requested = events[0]?.type === 'ExecutionRequested' ? events[0].data : undefined;
  if (!requested || (input.jobOf !== undefined && (requested.flowId !== input.jobOf || requested.mode !== 'async'))) {
    throw new ApiError('EXECUTION_NOT_FOUND', 'No such execution');
  }
  const who = canceller(metadata.principal);
  // Who cancelled is the service's to say; why is the canceller's own words: the sealed detail.
  const message = `cancelled by ${who}`;
  const detail = input.reason ? capFailureDetail(input.reason) : null;
  const durationMs = Math.max(0, deps.now().getTime() - Date.parse(recorded[0]!.metadata.occurredAt));
  const result = await handleCommand(deps, stream, execution, { type: 'Cancel', data: { message, detail, durationMs } }, metadata);
  return { executionId: input.executionId, status: 'failed' as const, failureReason: 'cancelled' as const, message: failureText({ message, detail }), position: result.position };
}
