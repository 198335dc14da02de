import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

const sha256Hex = z.string().regex(/^[a-f0-9]{64}$/);

/** A one-time console sign-in link for local use; only the token's SHA-256 reaches the log. */
export const ConsoleLinkIssued = defineEvent('ConsoleLinkIssued', 1, z.object({ tokenHash: sha256Hex, operator: z.string().min(1), expiresAt: z.iso.datetime() }));
export const ConsoleLinkRedeemed = defineEvent('ConsoleLinkRedeemed', 1, z.object({ tokenHash: sha256Hex, operator: z.string().min(1) }));

export type ConsoleLinkEvent = EventOf<typeof ConsoleLinkIssued> | EventOf<typeof ConsoleLinkRedeemed>;

export const consoleLinkStream = (tokenHash: string) => `consolelink-${tokenHash}`;
