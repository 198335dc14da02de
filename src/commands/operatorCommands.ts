import { OPERATORS_STREAM } from '../domain/operators/operatorEvents.ts';
import { operators } from '../domain/operators/operators.ts';
import { loadStream } from '../eventstore/streams.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** `seqflow operator grant|revoke`: the operator role of a user subject, as events. */
export async function setOperator(deps: CommandDependencies, input: { subject: string; operator: boolean }, metadata: CommandMetadata) {
  const result = await handleCommand(deps, OPERATORS_STREAM, operators, { type: input.operator ? 'Grant' : 'Revoke', data: { subject: input.subject } }, metadata);
  return { subject: input.subject, operator: input.operator, changed: result.events.length > 0 };
}

/** Whether a subject holds the operator role now, from the log (no read model lags behind a revoke). */
export async function isOperator(deps: Pick<CommandDependencies, 'eventStore'>, subject: string): Promise<boolean> {
  const { state } = await loadStream(deps.eventStore, OPERATORS_STREAM, operators);
  return state.subjects.has(subject);
}
