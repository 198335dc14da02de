import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { apiKeyEnvironments } from './apiKeyFormat.ts';

/** Carries only the SHA-256 of the secret: the plaintext key never reaches the log. */
export const ApiKeyCreated = defineEvent(
  'ApiKeyCreated',
  1,
  z.object({
    keyId: z.string(),
    projectId: z.string(),
    organizationId: z.string(),
    environment: z.enum(apiKeyEnvironments),
    keyPrefix: z.string(),
    secretHash: z.string().regex(/^[a-f0-9]{64}$/),
  }),
);
export const ApiKeyRevoked = defineEvent('ApiKeyRevoked', 1, z.object({ keyId: z.string(), projectId: z.string() }));

export type ApiKeyEvent = EventOf<typeof ApiKeyCreated> | EventOf<typeof ApiKeyRevoked>;

export const apiKeyStream = (keyId: string) => `apikey-${keyId}`;
