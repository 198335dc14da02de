import { ApiError } from '../domain/errors/apiError.ts';
import { organization } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { secretNameProblem, secretValueProblem } from '../domain/secrets/secretRules.ts';
import { loadStream } from '../eventstore/streams.ts';
import { encryptSecret } from '../security/secretBox.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** What anyone is shown of a secret: its name and version, never a character of its value. */
export interface SecretView {
  name: string;
  version: number;
  setAt: string;
}

/**
 * Sets an organization's secret (a new version when the name exists), encrypted under the master
 * key before it reaches the decider or the log. The value is checked first and never echoed: an
 * error says what is wrong with it, not what it was.
 */
export async function setSecret(deps: CommandDependencies, input: { organizationId: string; name: string; value: string }, masterKey: Buffer, metadata: CommandMetadata): Promise<SecretView> {
  const problem = secretNameProblem(input.name) ?? secretValueProblem(input.value);
  if (problem) throw new ApiError('VALIDATION_FAILED', problem);
  const result = await handleCommand(
    deps,
    organizationStream(input.organizationId),
    organization,
    { type: 'SetSecret', data: { name: input.name, encryptedValue: encryptSecret(input.value, masterKey), now: deps.now().toISOString() } },
    metadata,
  );
  const set = result.events.find((e) => e.type === 'SecretSet');
  if (set?.type !== 'SecretSet') throw new Error('SetSecret recorded no SecretSet');
  return { name: set.data.name, version: set.data.version, setAt: set.data.setAt };
}

/** Removes an organization's secret (SECRET_NOT_FOUND when it has none by that name). */
export async function deleteSecret(deps: CommandDependencies, input: { organizationId: string; name: string }, metadata: CommandMetadata) {
  await handleCommand(deps, organizationStream(input.organizationId), organization, { type: 'DeleteSecret', data: { name: input.name, now: deps.now().toISOString() } }, metadata);
  return { organizationId: input.organizationId, name: input.name, deleted: true };
}

/** The organization's secrets by name, from its stream (so a secret just set is listed at once). */
export async function listSecrets(deps: CommandDependencies, organizationId: string): Promise<SecretView[]> {
  const { state } = await loadStream(deps.eventStore, organizationStream(organizationId), organization);
  if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
  return [...state.secrets].map(([name, s]) => ({ name, version: s.version, setAt: s.setAt })).sort((a, b) => a.name.localeCompare(b.name));
}
