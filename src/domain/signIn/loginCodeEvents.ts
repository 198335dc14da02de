import { z } from 'zod';
import { aHash, aSubject } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const sha256Hex = aHash(z.string().regex(/^[a-f0-9]{64}$/));

/** A one-time sign-in code for the embedded OAuth server. Carries only the code's SHA-256: the code itself never reaches the log. */
export const LoginCodeIssued = defineEvent('LoginCodeIssued', 1, z.object({ codeHash: sha256Hex, subject: aSubject(), expiresAt: z.iso.datetime() }));
/** The code was used to sign in (once: a second use is refused). */
export const LoginCodeRedeemed = defineEvent('LoginCodeRedeemed', 1, z.object({ codeHash: sha256Hex, subject: aSubject() }));

export type LoginCodeEvent = EventOf<typeof LoginCodeIssued> | EventOf<typeof LoginCodeRedeemed>;

/** One stream per code, named by its hash: redeeming appends to it, so a code is used at most once. */
export const loginCodeStream = (codeHash: string) => `logincode-${codeHash}`;
