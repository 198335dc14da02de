import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../../src/domain/webhooks/webhookSignature.ts';
import { verifyWebhook as serverVerifyWebhook } from '../../../lib/index.mjs';
import { verifyWebhook } from '../src/index.ts';

const body = JSON.stringify({ event: 'flow.completed', deliveryId: 'd-1', result: { answer: 42 } });
const now = 1_800_000_000;
const signed = (secrets: { current: string; previous?: string }, timestamp = now, raw = body) => ({
  'X-Service-Signature': signatureHeader(timestamp, raw, secrets),
  'X-Service-Timestamp': String(timestamp),
  'X-Service-Delivery': 'd-1',
  'X-Service-Event': 'flow.completed',
});

describe('verifyWebhook (client) checks what the service signs, as the server package helper does', () => {
  it('accepts a delivery signed with the current secret, and with the previous one during a rotation', async () => {
    expect(await verifyWebhook(body, signed({ current: 'whsec_a' }), ['whsec_a'], { now })).toEqual({ ok: true, deliveryId: 'd-1', event: 'flow.completed', timestamp: now });
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(signed({ current: 'whsec_b', previous: 'whsec_a' })), ['whsec_a'], { now })).toMatchObject({ ok: true });
  });

  it('refuses a changed body, another secret, an old timestamp and a missing signature, with the reason', async () => {
    const cases: [string, Promise<unknown>][] = [
      ['no signature matches', verifyWebhook(body.replace('42', '43'), signed({ current: 'whsec_a' }), ['whsec_a'], { now })],
      ['no signature matches', verifyWebhook(body, signed({ current: 'whsec_a' }), ['whsec_z'], { now })],
      ['timestamp outside the tolerance', verifyWebhook(body, signed({ current: 'whsec_a' }, now - 301), ['whsec_a'], { now })],
      ['missing X-Service-Signature', verifyWebhook(body, {}, ['whsec_a'], { now })],
    ];
    for (const [reason, result] of cases) expect(await result).toEqual({ ok: false, reason });
  });

  it('agrees with the server package verifyWebhook on every case', async () => {
    const inputs: [string, Record<string, string>, string[]][] = [
      [body, signed({ current: 'whsec_a' }), ['whsec_a']],
      [body, signed({ current: 'whsec_b', previous: 'whsec_a' }), ['whsec_a']],
      [body + ' ', signed({ current: 'whsec_a' }), ['whsec_a']],
      [body, signed({ current: 'whsec_a' }, now + 400), ['whsec_a']],
    ];
    for (const [raw, headers, secrets] of inputs) expect(await verifyWebhook(raw, headers, secrets, { now })).toEqual(serverVerifyWebhook(raw, headers, secrets, { now }));
  });
});
