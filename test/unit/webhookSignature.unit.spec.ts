import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../lib/index.mjs';
import { computeSignature, signatureHeader } from '../../src/domain/webhooks/webhookSignature.ts';

const body = JSON.stringify({ event: 'flow.completed', executionId: 'e1', result: { ok: true } });
const t = 1_800_000_000;

describe('webhook signatures', () => {
  it('v1 is HMAC-SHA256 over "<t>.<raw body>" in lowercase hex; v2 only with a previous secret', () => {
    expect(computeSignature('s3cret', t, body)).toBe(createHmac('sha256', 's3cret').update(`${t}.${body}`).digest('hex'));
    expect(signatureHeader(t, body, { current: 'new' })).toBe(`t=${t},v1=${computeSignature('new', t, body)}`);
    expect(signatureHeader(t, body, { current: 'new', previous: 'old' })).toBe(`t=${t},v1=${computeSignature('new', t, body)},v2=${computeSignature('old', t, body)}`);
  });

  it('verifies with either slot, over the raw bytes, within the tolerance', () => {
    const headers = { 'x-service-signature': signatureHeader(t, body, { current: 'new', previous: 'old' }), 'x-service-timestamp': String(t), 'x-service-delivery': 'd1', 'x-service-event': 'flow.completed' };
    expect(verifyWebhook(body, headers, ['new'], { now: t })).toEqual({ ok: true, deliveryId: 'd1', event: 'flow.completed', timestamp: t });
    expect(verifyWebhook(Buffer.from(body), headers, ['old'], { now: t + 299 })).toMatchObject({ ok: true });
    expect(verifyWebhook(body, headers, ['other'], { now: t })).toEqual({ ok: false, reason: 'no signature matches' });
    expect(verifyWebhook(body, headers, ['new'], { now: t + 301 })).toEqual({ ok: false, reason: 'timestamp outside the tolerance' });
    // Re-serialised JSON is not the raw body.
    expect(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), headers, ['new'], { now: t })).toMatchObject({ ok: false });
    expect(verifyWebhook(body, { ...headers, 'x-service-timestamp': String(t + 1) }, ['new'], { now: t })).toMatchObject({ ok: false });
    expect(verifyWebhook(body, {}, ['new'], { now: t })).toEqual({ ok: false, reason: 'missing X-Service-Signature' });
  });
});
