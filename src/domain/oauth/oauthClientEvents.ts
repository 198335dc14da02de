import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** An operator ended an assistant's registration at the embedded authorization server: its sign-ins and tokens with it. */
export const OAuthClientRevoked = defineEvent('OAuthClientRevoked', 1, z.object({ clientId: z.string().min(1), clientName: z.string().nullable(), grantsEnded: z.number().int().min(0) }));

export type OAuthClientEvent = EventOf<typeof OAuthClientRevoked>;

export const oauthClientStream = (clientId: string) => `oauthclient-${clientId}`;
