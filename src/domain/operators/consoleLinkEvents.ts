import { z } from 'zod';
import { aHash, aSubject } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const sha256Hex = aHash(z.string().regex(/^[a-f0-9]{64}$/));

/** A one-time console sign-in link for local use; only the token's SHA-256 reaches the log. */
export const ConsoleLinkIssued = defineEvent('ConsoleLinkIssued', 1, z.object({ tokenHash: sha256Hex, operator: aSubject(), expiresAt: z.iso.datetime() }));
export const ConsoleLinkRedeemed = defineEvent('ConsoleLinkRedeemed', 1, z.object({ tokenHash: sha256Hex, operator: aSubject() }));

export type ConsoleLinkEvent = EventOf<typeof ConsoleLinkIssued> | EventOf<typeof ConsoleLinkRedeemed>;

export const consoleLinkStream = (tokenHash: string) => `consolelink-${tokenHash}`;
