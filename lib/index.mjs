// Seqflow's receiver helper: verify a webhook delivery before acting on it. Dependency-free.
import { createHmac, timingSafeEqual } from 'node:crypto';

const header = (headers, name) => {
  const value = headers[name] ?? headers[name.toLowerCase()] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Verifies a delivery's `X-Service-Signature` over the raw body bytes, against each given secret
 * (the current one and, during a rotation's grace window, the previous one), in constant time, and
 * refuses timestamps outside the tolerance (default 5 minutes) to stop replays.
 *
 * @param {string | Buffer | Uint8Array} rawBody the body exactly as received, before any JSON parsing
 * @param {Record<string, string | string[] | undefined>} headers the request headers
 * @param {string[]} secrets the organization's signing secrets
 * @param {{ toleranceSeconds?: number, now?: number }} [options] `now` in unix seconds
 * @returns {{ ok: true, deliveryId: string | undefined, event: string | undefined, timestamp: number } | { ok: false, reason: string }}
 */
export function verifyWebhook(rawBody, headers, secrets, options = {}) {
  const signature = header(headers, 'X-Service-Signature');
  if (!signature) return { ok: false, reason: 'missing X-Service-Signature' };
  const fields = Object.fromEntries(
    signature.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    }),
  );
  const timestamp = Number(fields.t);
  if (!Number.isInteger(timestamp)) return { ok: false, reason: 'malformed signature timestamp' };
  if (String(timestamp) !== String(header(headers, 'X-Service-Timestamp') ?? timestamp)) return { ok: false, reason: 'timestamp header does not match the signature' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp outside the tolerance' };

  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody);
  const candidates = [fields.v1, fields.v2].filter((v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)).map((v) => Buffer.from(v, 'hex'));
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    if (candidates.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) {
      return { ok: true, deliveryId: header(headers, 'X-Service-Delivery'), event: header(headers, 'X-Service-Event'), timestamp };
    }
  }
  return { ok: false, reason: 'no signature matches' };
}
