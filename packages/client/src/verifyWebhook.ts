/** What `verifyWebhook` concludes: the delivery's id and event when a signature matches, else why not. */
export type VerifyResult = { ok: true; deliveryId: string | undefined; event: string | undefined; timestamp: number } | { ok: false; reason: string };

type Headers = Record<string, string | string[] | undefined> | globalThis.Headers;

const header = (headers: Headers, name: string): string | undefined => {
  if (typeof (headers as globalThis.Headers).get === 'function') return (headers as globalThis.Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(entry) ? entry[0] : (entry as string | undefined);
};

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));

/**
 * Verifies a webhook delivery before you act on it: `X-Service-Signature` (`t=<unix>,v1=<hex>[,v2=<hex>]`)
 * must be the HMAC-SHA256 of `<t>.<raw body>` under one of `secrets` (the current secret and, during a
 * rotation's grace window, the previous one), and `t` within `toleranceSeconds` (default 300) of now, so
 * a captured delivery cannot be replayed later. Compared in constant time (WebCrypto's `verify`), so it
 * runs in Node.js 20+, Deno, Bun, and edge runtimes. Pass the body exactly as received, before parsing.
 */
export async function verifyWebhook(rawBody: string | Uint8Array, headers: Headers, secrets: string[], options: { toleranceSeconds?: number; now?: number } = {}): Promise<VerifyResult> {
  const signature = header(headers, 'X-Service-Signature');
  if (!signature) return { ok: false, reason: 'missing X-Service-Signature' };
  const fields = new Map(
    signature.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(fields.get('t'));
  if (!Number.isInteger(timestamp)) return { ok: false, reason: 'malformed signature timestamp' };
  if (String(timestamp) !== (header(headers, 'X-Service-Timestamp') ?? String(timestamp))) return { ok: false, reason: 'timestamp header does not match the signature' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp outside the tolerance' };

  const encoder = new TextEncoder();
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const candidates = [fields.get('v1'), fields.get('v2')].filter((v): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)).map(hexBytes);
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const candidate of candidates) {
      if (await crypto.subtle.verify('HMAC', key, candidate, signed)) {
        return { ok: true, deliveryId: header(headers, 'X-Service-Delivery'), event: header(headers, 'X-Service-Event'), timestamp };
      }
    }
  }
  return { ok: false, reason: 'no signature matches' };
}
