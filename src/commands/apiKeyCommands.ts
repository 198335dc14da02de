import { randomBytes } from 'node:crypto';
import { apiKey } from '../domain/apiKeys/apiKey.ts';
import { apiKeyStream } from '../domain/apiKeys/apiKeyEvents.ts';
import { API_KEY_PREFIX, type ApiKeyEnvironment, apiKeyEnvironments, formatApiKey, hashApiKeySecret } from '../domain/apiKeys/apiKeyFormat.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';
import { findProject } from './projectCommands.ts';

/** Creates a key for one project. The full key is returned here once; only its hash is kept. */
export async function createApiKey(
  deps: CommandDependencies,
  input: { organizationSlug: string; projectSlug: string; environment: string },
  metadata: CommandMetadata,
) {
  if (!(apiKeyEnvironments as readonly string[]).includes(input.environment)) {
    throw new ApiError('VALIDATION_FAILED', `environment must be live or test (got '${input.environment}')`);
  }
  const environment = input.environment as ApiKeyEnvironment;
  const { organizationId, projectId } = await findProject(deps, input.organizationSlug, input.projectSlug);
  const keyId = randomBytes(12).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const result = await handleCommand(
    deps,
    apiKeyStream(keyId),
    apiKey,
    {
      type: 'CreateApiKey',
      data: { keyId, projectId, organizationId, environment, keyPrefix: API_KEY_PREFIX, secretHash: hashApiKeySecret(secret) },
    },
    metadata,
  );
  return { key: formatApiKey({ prefix: API_KEY_PREFIX, environment, keyId, secret }), keyId, projectId, organizationId, position: result.position };
}

export async function revokeApiKey(deps: CommandDependencies, input: { keyId: string }, metadata: CommandMetadata) {
  const result = await handleCommand(deps, apiKeyStream(input.keyId), apiKey, { type: 'RevokeApiKey', data: { keyId: input.keyId } }, metadata);
  return { keyId: input.keyId, revoked: true, position: result.position };
}
