import { createHmac } from 'node:crypto';

/**
 * Spec section 6, Signature: v1 is the lowercase hex HMAC-SHA256 of `<t>.<raw body>` under the
 * organization's current secret; during the grace window after a rotation, v2 is the same under
 * the previous secret. Time is passed in (unix seconds), so a retry signs with a fresh timestamp.
 */
export const computeSignature = (secret: string, timestamp: number, rawBody: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');

export function signatureHeader(timestamp: number, rawBody: string, secrets: { current: string; previous?: string | null }): string {
  const parts = [`t=${timestamp}`, `v1=${computeSignature(secrets.current, timestamp, rawBody)}`];
  if (secrets.previous) parts.push(`v2=${computeSignature(secrets.previous, timestamp, rawBody)}`);
  return parts.join(',');
}
