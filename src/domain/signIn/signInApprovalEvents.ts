import { z } from 'zod';
import { aHash, aSubject, oauthClientId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const sha256Hex = aHash(z.string().regex(/^[a-f0-9]{64}$/));

/**
 * A member or operator signed in to the console approved a pending assistant sign-in (the request
 * code its sign-in page shows) for `subject`, until `expiresAt`. The approver is the event's principal.
 */
export const SignInRequestApproved = defineEvent(
  'SignInRequestApproved',
  1,
  z.object({ requestCodeHash: sha256Hex, subject: aSubject(), clientId: oauthClientId(), readOnly: z.boolean(), expiresAt: z.iso.datetime() }),
);
/** The browser that started the sign-in finished it with the approval (once: a second use is refused). */
export const SignInRequestCompleted = defineEvent('SignInRequestCompleted', 1, z.object({ requestCodeHash: sha256Hex, subject: aSubject() }));

export type SignInApprovalEvent = EventOf<typeof SignInRequestApproved> | EventOf<typeof SignInRequestCompleted>;

/** One stream per request, named by its code's hash: approving and completing append to it. */
export const signInApprovalStream = (requestCodeHash: string) => `signinapproval-${requestCodeHash}`;
