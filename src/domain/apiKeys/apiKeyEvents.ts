import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { aHash, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { apiKeyEnvironments } from './apiKeyFormat.ts';

/** Carries only the SHA-256 of the secret: the plaintext key never reaches the log. */
export const ApiKeyCreated = defineEvent(
  'ApiKeyCreated',
  1,
  z.object({
    keyId: anId(),
    projectId: anId(),
    organizationId: anId(),
    environment: z.enum(apiKeyEnvironments),
    keyPrefix: operational(z.string(), "the key's public prefix (the spec's key_prefix): names the key, cannot use it"),
    secretHash: aHash(z.string().regex(/^[a-f0-9]{64}$/)),
  }),
);
export const ApiKeyRevoked = defineEvent('ApiKeyRevoked', 1, z.object({ keyId: anId(), projectId: anId() }));

export type ApiKeyEvent = EventOf<typeof ApiKeyCreated> | EventOf<typeof ApiKeyRevoked>;

export const apiKeyStream = (keyId: string) => `apikey-${keyId}`;
