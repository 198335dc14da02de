import { createHash, randomBytes } from 'node:crypto';
import { consoleLink } from '../domain/operators/consoleLink.ts';
import { consoleLinkStream } from '../domain/operators/consoleLinkEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

export const CONSOLE_LINK_TTL_MS = 15 * 60_000;
const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A one-time console sign-in token for `operator` (a name for the log: who opened the console this way). */
export async function issueConsoleLink(deps: CommandDependencies, input: { operator: string }, metadata: CommandMetadata) {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(deps.now().getTime() + CONSOLE_LINK_TTL_MS).toISOString();
  await handleCommand(deps, consoleLinkStream(hashOf(token)), consoleLink, { type: 'Issue', data: { tokenHash: hashOf(token), operator: input.operator, expiresAt } }, metadata);
  return { token, expiresAt };
}

/** Uses a link up: the operator it was issued for, or UNAUTHENTICATED. */
export async function redeemConsoleLink(deps: CommandDependencies, token: string, metadata: CommandMetadata): Promise<string> {
  const result = await handleCommand(deps, consoleLinkStream(hashOf(token)), consoleLink, { type: 'Redeem', data: { now: deps.now().toISOString() } }, metadata);
  return result.events[0]!.data.operator;
}
