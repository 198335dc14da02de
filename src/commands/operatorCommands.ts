import { OPERATORS_STREAM } from '../domain/operators/operatorEvents.ts';
import { linkSessionStands, operators } from '../domain/operators/operators.ts';
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

/** `seqflow console revoke`: every console session opened with a one-time link so far ends, at once. */
export async function endConsoleLinkSessions(deps: CommandDependencies, metadata: CommandMetadata) {
  const before = deps.now().toISOString();
  await handleCommand(deps, OPERATORS_STREAM, operators, { type: 'EndLinkSessions', data: { now: before } }, metadata);
  return { endedBefore: before };
}

/** Whether a console link session opened at `openedAtMs` still stands, from the log (a revoke takes effect at once). */
export async function linkSessionOpen(deps: Pick<CommandDependencies, 'eventStore'>, openedAtMs: number): Promise<boolean> {
  const { state } = await loadStream(deps.eventStore, OPERATORS_STREAM, operators);
  return linkSessionStands(state, openedAtMs);
}
