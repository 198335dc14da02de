import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { aSubject, oauthClientId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** The name an assistant registered itself under (its software's name): shown to the member who signs it in. */
const clientName = () => operational(z.string().nullable(), "the name an assistant's software registered itself under, not a person's");

/** An operator ended an assistant's registration at the embedded authorization server: its sign-ins and tokens with it. */
export const OAuthClientRevoked = defineEvent('OAuthClientRevoked', 1, z.object({ clientId: oauthClientId(), clientName: clientName(), grantsEnded: z.number().int().min(0) }));

/**
 * A member signed an assistant in at the embedded authorization server (with a one-time code): from
 * now on the client acts for `subject`. Registrations are anonymous and are not events; this is
 * where a client becomes someone's.
 */
export const OAuthClientSignedIn = defineEvent('OAuthClientSignedIn', 1, z.object({ clientId: oauthClientId(), clientName: clientName(), subject: aSubject(), resources: z.array(operational(z.string().min(1), "the service's own resource URLs a token is for")) }));

/** Why a sign-in (a grant) ended at the embedded authorization server, other than an operator's revocation of the client (OAuthClientRevoked). */
export const SIGN_IN_END_REASONS = ['refresh_token_reuse', 'authorization_code_reuse', 'revoked_by_client'] as const;

/**
 * A sign-in of the client ended: its grant and every token of it are gone, and the assistant must
 * sign in again. `refresh_token_reuse`: a refresh token was presented again after its reuse grace
 * (RFC 9700 §2.2.2: a stolen token and its legitimate holder cannot be told apart, so the family
 * ends); `authorization_code_reuse`: a code was exchanged twice; `revoked_by_client`: the client
 * revoked its own token.
 */
export const OAuthSignInEnded = defineEvent('OAuthSignInEnded', 1, z.object({ clientId: oauthClientId(), subject: aSubject().nullable(), reason: z.enum(SIGN_IN_END_REASONS) }));

export type OAuthClientEvent = EventOf<typeof OAuthClientRevoked> | EventOf<typeof OAuthClientSignedIn> | EventOf<typeof OAuthSignInEnded>;

export const oauthClientStream = (clientId: string) => `oauthclient-${clientId}`;
