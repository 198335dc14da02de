import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** An operator ended an assistant's registration at the embedded authorization server: its sign-ins and tokens with it. */
export const OAuthClientRevoked = defineEvent('OAuthClientRevoked', 1, z.object({ clientId: z.string().min(1), clientName: z.string().nullable(), grantsEnded: z.number().int().min(0) }));

/**
 * A member signed an assistant in at the embedded authorization server (with a one-time code): from
 * now on the client acts for `subject`. Registrations are anonymous and are not events; this is
 * where a client becomes someone's.
 */
export const OAuthClientSignedIn = defineEvent('OAuthClientSignedIn', 1, z.object({ clientId: z.string().min(1), clientName: z.string().nullable(), subject: z.string().min(1), resources: z.array(z.string().min(1)) }));

export type OAuthClientEvent = EventOf<typeof OAuthClientRevoked> | EventOf<typeof OAuthClientSignedIn>;

export const oauthClientStream = (clientId: string) => `oauthclient-${clientId}`;
