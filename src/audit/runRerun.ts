import { randomUUID } from 'node:crypto';
import { type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { execution } from '../domain/execution/execution.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { type EngineDependencies, commandsOf } from '../execution/engineDependencies.ts';
import { prepareExecution } from '../execution/flowEngine.ts';
import { runRequest } from '../execution/runRequest.ts';
import { loadRunRecord } from './runRecord.ts';

/**
 * Runs a recorded run again: the same input (message, parameters, attachments) on the same version
 * it ran (never whatever is in production now), as a new synchronous run. Both streams say so: the
 * new run's ExecutionRequested carries `rerunOf`, and the original's stream gets
 * ExecutionRerunStarted, written first so the link exists even if the rerun fails. Tool calls are
 * not answered: a rerun of a tool-calling run stops at its first pause.
 */
export async function rerunExecution(engine: EngineDependencies, input: { executionId: string }, metadata: CommandMetadata) {
  const record = await loadRunRecord(engine.eventStore, input.executionId);
  const first = record.events[0];
  if (first?.type !== 'ExecutionRequested') throw new ApiError('EXECUTION_NOT_FOUND', `No run ${input.executionId}`);
  if (record.events.some((e) => e.type === 'RunDataErased')) throw new ApiError('CONFLICT', `run ${input.executionId}'s data was erased: its input is gone, so it cannot be run again`);
  if (!record.version) throw new ApiError('VERSION_NOT_FOUND', `The version run ${input.executionId} executed is not in the log`);
  const original = first.data;
  const executionId = randomUUID();
  await handleCommand(commandsOf(engine), executionStream(original.executionId), execution, { type: 'LinkRerun', data: { rerunExecutionId: executionId } }, metadata);
  const { flowId, versionId, versionNumber, organizationId, projectId } = original;
  const request = runRequest({ flowId, versionId, versionNumber, organizationId, projectId, steps: record.version.steps }, original, { executionId, mode: 'sync', principal: metadata.principal, rerunOf: original.executionId });
  const prepared = await prepareExecution(engine, request);
  const outcome = await prepared.start();
  const { position: _position, ...shown } = outcome;
  return { ...shown, executionId, rerunOf: original.executionId, version: { versionId: original.versionId, number: original.versionNumber } };
}
