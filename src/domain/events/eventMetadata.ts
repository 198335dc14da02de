import { z } from 'zod';

/**
 * Who caused an event: a signed-in user, an API key, the CLI operator or the service itself. A user
 * acting through an assistant carries the channel (`via: 'mcp'`) and the OAuth client it signed in with.
 */
export const principalSchema = z.object({
  kind: z.enum(['user', 'apiKey', 'cli', 'system']),
  id: z.string().min(1),
  via: z.enum(['mcp', 'console']).optional(),
  clientId: z.string().min(1).optional(),
});
export type Principal = z.infer<typeof principalSchema>;

export const eventMetadataSchema = z.object({
  correlationId: z.string().min(1),
  causationId: z.string().min(1).nullable(),
  principal: principalSchema,
  occurredAt: z.iso.datetime(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;
