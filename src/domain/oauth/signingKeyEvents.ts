import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const aKeyPart = () => operational(z.string().min(1), "a coordinate of a public key: public by design");
const aKeyId = () => operational(z.string().min(1), "a signing key's id (kid): names a key");

/** The public half of an ES256 signing key: what verifies the tokens it signs (never the private half). */
export const publicSigningKey = z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: aKeyPart(), y: aKeyPart() });

/**
 * An operator rotated the embedded authorization server's signing key: tokens are signed with `kid`
 * from now on; the keys in `retiredKids` are deleted (no unexpired token was signed with them).
 * Earlier keys still verify the tokens they signed, so no one is signed out.
 */
export const OAuthSigningKeyRotated = defineEvent('OAuthSigningKeyRotated', 1, z.object({ kid: aKeyId(), publicKey: publicSigningKey, retiredKids: z.array(aKeyId()) }));

export type OAuthSigningKeyEvent = EventOf<typeof OAuthSigningKeyRotated>;

/** One stream for the embedded server's key history. */
export const OAUTH_SIGNING_KEYS_STREAM = 'oauthkeys';
