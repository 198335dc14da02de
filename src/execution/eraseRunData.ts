import { type CommandDependencies, type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { execution } from '../domain/execution/execution.ts';
import { type ErasureMatch, executionStream } from '../domain/execution/executionEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';

export interface RunErasure {
  executionId: string;
  /** When the run's data was erased: now, or by an earlier erasure, which stands. */
  erasedAt: string;
  /** false: it was erased before this request. */
  erasedNow: boolean;
}

/**
 * Erases a run's personal data: RunDataErased (who in its metadata, why in its data), then the run's
 * data key. The event goes first, so a process dying between the two leaves an erasure on record
 * whose key the runs projection removes when it applies it; erasing again also removes it again.
 * `projectOf`: only a run of that project is found (an API key's caller); any other is not found.
 */
export async function eraseRunData(
  deps: CommandDependencies & { runDataKeys: RunDataKeys },
  input: { executionId: string; reason: string; trigger?: 'request' | 'retention'; match?: ErasureMatch; projectOf?: string; flowOf?: string },
  metadata: CommandMetadata,
): Promise<RunErasure> {
  const stream = executionStream(input.executionId);
  const loaded = await loadStream(deps.eventStore, stream, execution);
  const requested = loaded.events[0]?.type === 'ExecutionRequested' ? loaded.events[0].data : undefined;
  if (!requested || (input.projectOf !== undefined && requested.projectId !== input.projectOf) || (input.flowOf !== undefined && requested.flowId !== input.flowOf)) {
    throw new ApiError('EXECUTION_NOT_FOUND', `No run ${input.executionId}`);
  }
  // A run recorded before run data was sealed (migration 0020) has no key: its data is plaintext in
  // the append-only log, and an erasure that said it removed it would be a lie.
  if ((await deps.runDataKeys.forOpening([input.executionId])).get(input.executionId) === 'none') {
    throw new ApiError('CONFLICT', `Run ${input.executionId} was recorded before run data was sealed (an earlier release): its data cannot be erased from the log`);
  }
  const erasedAt = deps.now().toISOString();
  const result = await handleCommand(deps, stream, execution, { type: 'Erase', data: { trigger: input.trigger ?? 'request', reason: input.reason, erasedAt, match: input.match ?? null } }, metadata, loaded);
  const state = result.state;
  const recordedAt = state.status === 'none' || state.erasedAt === null ? erasedAt : state.erasedAt;
  await deps.runDataKeys.erase(input.executionId, new Date(recordedAt));
  return { executionId: input.executionId, erasedAt: recordedAt, erasedNow: result.events.length > 0 };
}
